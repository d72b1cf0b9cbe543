/**
 * The run path reads straight down: every import of src/ goes to a lower layer (or
 * stays in its folder), so there are no folder cycles. Layers, top to bottom:
 *   cli → service → http, drop, ports (the deployment mode's seam) → jobs, rate-limit → pipeline → live → stages
 *   → analytics → asr, search, tenancy, callbacks, metrics → audio, render, store, blobs, scheduler, text, vad
 *   → readable → config, errors, is, log, types
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const LAYERS: string[][] = [
  ['cli'],
  ['service'],
  ['http', 'drop', 'ports'],
  ['jobs', 'rate-limit'],
  ['pipeline'],
  ['live'],
  ['stages'],
  ['analytics'],
  ['asr', 'search', 'tenancy', 'callbacks', 'metrics', 'redact', 'speakers'],
  ['audio', 'render', 'store', 'blobs', 'scheduler', 'text', 'numbers', 'vad'],
  ['addon'],
  ['readable', 'audit'],
  ['config', 'errors', 'is', 'log', 'types'],
];
/** Within the bottom layer these go one way only. */
const BASE_ORDER = ['types', 'log', 'config', 'is', 'errors'];

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const f = path.join(dir, n);
    return statSync(f).isDirectory() ? tsFiles(f) : f.endsWith('.ts') ? [f] : [];
  });
}

/** The unit a file belongs to: its folder under src/, or the file name for files at src/'s top. */
function unit(file: string): string {
  const second = path.relative(ROOT, file).split(path.sep)[1];
  return /\.[jt]s$/.test(second!) ? second!.replace(/\.[jt]s$/, '') : second!;
}

const rank = (u: string) => LAYERS.findIndex((l) => l.includes(u));

const layers = suite('layers');

layers('every import of src/ points down the layers', () => {
  const wrong: string[] = [];
  for (const file of tsFiles(path.join(ROOT, 'src'))) {
    const from = unit(file);
    for (const m of readFileSync(file, 'utf8').matchAll(/^\s*(?:import|export)[^'"]*?from\s+'(\.[^']+)'/gm)) {
      const to = unit(path.resolve(path.dirname(file), m[1]!));
      if (from === to) continue;
      assert.ok(rank(from) >= 0 && rank(to) >= 0, `${from} or ${to} is in no layer: add it to LAYERS in test/layers.test.ts`);
      const down = rank(to) > rank(from) || (rank(to) === LAYERS.length - 1 && rank(from) === rank(to) && BASE_ORDER.indexOf(to) > BASE_ORDER.indexOf(from));
      if (!down) wrong.push(`${path.relative(ROOT, file)} → ${m[1]}`);
    }
  }
  assert.equal(wrong, []);
});

layers.run();
