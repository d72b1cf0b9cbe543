#!/usr/bin/env node
// Runs the compiled CLI (dist/src/cli/voxdex.js) when the package is built and the build is not
// older than the TypeScript sources. Otherwise runs the sources in a child `node --import tsx`
// (worker threads, such as the ASR pool, inherit the loader only from the command line), passing
// signals on and exiting with its status — and SIGTERM when the process that started this one is
// gone (npx through a shell that dies of the SIGTERM meant for us: src/cli/voxdex.ts, watchParent).
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const compiled = path.join(root, 'dist', 'src', 'cli', 'voxdex.js');
const source = path.join(root, 'src', 'cli', 'voxdex.ts');

function newestSource(dir) {
  if (!existsSync(dir)) return 0;
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(p));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

const useCompiled =
  existsSync(compiled) &&
  (!existsSync(source) || statSync(compiled).mtimeMs >= newestSource(path.join(root, 'src')));

if (useCompiled) {
  const cli = await import(pathToFileURL(compiled).href);
  cli.run(process.argv.slice(2));
} else {
  const child = spawn(process.execPath, [`--import=${import.meta.resolve('tsx')}`, source, ...process.argv.slice(2)], { stdio: 'inherit' });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  const parent = process.ppid;
  const orphaned = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(orphaned);
    child.kill('SIGTERM');
  }, 1000);
  orphaned.unref();
}
