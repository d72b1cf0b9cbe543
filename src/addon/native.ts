/**
 * The native addon's small system calls (native/src: memory_file, thread_clock), loaded once in the
 * thread that asks, apart from its ASR engines (src/asr/binding.ts loads the same file for those).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { PACKAGE_ROOT } from '../config.js';
import { voxdexError } from '../errors.js';

interface SystemCalls {
  memoryFile(name: string): number;
  threadCpuMs(): number;
}

const ADDON = path.join(PACKAGE_ROOT, 'native', 'build', 'Release', 'voxdex_asr.node');
let calls: SystemCalls | null | undefined;

function load(): SystemCalls | null {
  if (calls === undefined) {
    try {
      calls = createRequire(import.meta.url)(ADDON) as SystemCalls;
    } catch {
      calls = null;
    }
  }
  return calls;
}

/** A new anonymous in-memory file (memfd_create, close-on-exec): its descriptor. */
export function memoryFile(name: string): number {
  const c = load();
  if (!c) throw voxdexError('INTERNAL', `the native addon ${ADDON} could not be loaded; build it with \`npm run build:native\` (scripts/install.sh does)`);
  return c.memoryFile(name);
}

/** CPU milliseconds this thread has used; without the addon, wall-clock milliseconds (a budget then counts waiting too). */
export function threadCpuMs(): number {
  const ms = load()?.threadCpuMs() ?? -1;
  return ms >= 0 ? ms : performance.now();
}
