/**
 * Builds the web UI into dist/ui/ (served by voxdex at /ui/): ui/src/main.ts bundled and minified
 * by esbuild (from npm) into app.js, plus index.html and styles.css copied. No CDN, no runtime
 * dependencies. `npm run build:ui` (scripts/install.sh runs it); tests call buildUi() themselves.
 */
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const UI_OUT_DIR = path.join(here, '..', 'dist', 'ui');

export async function buildUi(outDir = UI_OUT_DIR): Promise<string[]> {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  await build({
    entryPoints: [path.join(here, 'src', 'main.ts')],
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022', 'chrome110', 'firefox115', 'safari16'],
    outfile: path.join(outDir, 'app.js'),
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
  });
  for (const name of ['index.html', 'styles.css', 'icon.svg']) copyFileSync(path.join(here, name), path.join(outDir, name));
  return readdirSync(outDir).sort();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const files = await buildUi();
  console.log(`voxdex: web UI built into ${path.relative(process.cwd(), UI_OUT_DIR) || UI_OUT_DIR} (${files.join(', ')})`);
}
