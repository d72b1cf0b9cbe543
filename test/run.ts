/**
 * Runs every `*.test.ts` under test/ (or those whose path matches argv[2]) as uvu suites in one
 * process, then prints the plain closing line "N passed, N failed" and exits with uvu's code.
 * Usage: node --import tsx test/run.ts [path-regex]
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2] ? new RegExp(process.argv[2]) : undefined;

function find(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const file = path.join(dir, name);
      if (statSync(file).isDirectory()) return name === 'fixtures' ? [] : find(file);
      return name.endsWith('.test.ts') ? [file] : [];
    });
}

const files = find(root).filter((f) => !filter || filter.test(path.relative(root, f)));
if (files.length === 0) {
  console.error(`no test files match ${filter ?? '*.test.ts'}`);
  process.exit(1);
}

// uvu prints "Total: N" and "Passed: N"; read them back for the closing line.
let printed = '';
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
  printed = (printed + String(chunk)).slice(-400);
  return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
}) as typeof process.stdout.write;

const g = globalThis as unknown as { UVU_DEFER: number; UVU_INDEX: number; UVU_QUEUE: unknown[][] };
g.UVU_DEFER = 1;
const uvu = await import('uvu');
for (const [i, file] of files.entries()) {
  g.UVU_INDEX = i;
  g.UVU_QUEUE.push([path.relative(root, file)]);
  await import(pathToFileURL(file).href);
}
await uvu.exec(false);

const clean = printed.replace(/\x1b\[[0-9;]*m/g, '');
const total = Number(/Total:\s+(\d+)/.exec(clean)?.[1] ?? 0);
const passed = Number(/Passed:\s+(\d+)/.exec(clean)?.[1] ?? 0);
const skipped = Number(/Skipped:\s+(\d+)/.exec(clean)?.[1] ?? 0);
console.log(`${passed} passed, ${total - passed} failed, ${skipped} skipped`);
process.exit(total === 0 ? 1 : (process.exitCode ?? 0));
