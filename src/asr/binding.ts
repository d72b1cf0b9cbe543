/**
 * Loads the native addon (native/build/Release/voxdex_asr.node) with a message that says how to
 * build it, and vets models in a child process before any worker loads them: PocketSphinx calls
 * exit() on some corrupt model files, which must not take the service down.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PACKAGE_ROOT } from '../config.js';
import { voxdexError, type ErrorInfo } from '../errors.js';
import type { EngineDesc, PocketSphinxDesc } from './engines/engine.js';
import type { ModelSpec } from './models.js';

export const ADDON_PATH = path.join(PACKAGE_ROOT, 'native', 'build', 'Release', 'voxdex_asr.node');

/** What the native layer takes: a ModelSpec with options as [flag, value] pairs. */
export interface NativeModelDesc {
  name: string;
  engine: string;
  sampleRate: number;
  hmm: string;
  dict: string;
  lm: string;
  options: Array<[string, string]>;
}

export interface NativeWord {
  word: string;
  /** Milliseconds from the first sample handed to decode(). */
  start: number;
  end: number;
  confidence: number;
  /**
   * Text-only engines (Moonshine): the written form of the written word this spoken word begins
   * ("$25."), '' on the later spoken words of the same written word. Carried to the readable-text
   * stage only (WordEvent.written); never persisted.
   */
  written?: string;
}

export interface NativeTranscript {
  frames: number;
  words: NativeWord[];
  /** align(): the best path's natural-log likelihood (acoustic and grammar together); 0 from decode(). */
  score?: number;
}

export interface NativeRecognizer {
  readonly sampleRate: number;
  /** Synchronous; throws an Error with `code` MODEL_LOAD_FAILED | ASR_FAILED | CANCELLED. */
  decode(samples: Int16Array, abort?: Int32Array, wholeUtterance?: boolean): NativeTranscript;
  /**
   * Forced alignment (a model loaded without a language model): slot → alternatives → dictionary
   * words ("zero|oh" offers choices). Returns the path taken; unknown words come back as "@phone" runs.
   */
  align(samples: Int16Array, slots: string[][][], abort?: Int32Array, penalties?: number[][]): NativeTranscript;
  /**
   * Adds a word with its phones ("Z EH N T R IH K S") to an aligner's dictionary for later alignments;
   * false when the phones are not the model's. Slot alternatives may then name it. `penalties`
   * (slot → alternative → nats) lowers the paths through an alternative.
   */
  addWord(word: string, phones: string): boolean;
}

export interface NativeBinding {
  Recognizer: new (desc: NativeModelDesc) => NativeRecognizer;
  engines(): string[];
  /** An anonymous in-memory file (memfd_create): its descriptor. */
  memoryFile(name: string): number;
}

let binding: NativeBinding | undefined;

export function loadBinding(): NativeBinding {
  if (binding) return binding;
  try {
    binding = createRequire(import.meta.url)(ADDON_PATH) as NativeBinding;
  } catch (err) {
    throw voxdexError(
      'MODEL_LOAD_FAILED',
      `the native ASR addon could not be loaded from ${ADDON_PATH} (${(err as Error).message.split('\n')[0]}). ` +
        'Build it with `npm run build:native` (needs cmake, a C++ compiler, pkg-config and libpocketsphinx-dev; scripts/install.sh does all of it).',
      err,
    );
  }
  return binding;
}

export function toNativeDesc(spec: ModelSpec): PocketSphinxDesc {
  return {
    name: spec.name,
    engine: 'pocketsphinx',
    sampleRate: spec.sampleRate,
    hmm: spec.hmm,
    dict: spec.dict,
    lm: spec.lm,
    options: Object.entries(spec.options),
  };
}

/** What crosses to a worker to name a model of any engine. */
export function toEngineDesc(spec: ModelSpec): EngineDesc {
  if (spec.engine === 'moonshine') {
    return { name: spec.name, engine: 'moonshine', sampleRate: spec.sampleRate, dir: spec.dir, options: Object.entries(spec.options) };
  }
  return toNativeDesc(spec);
}

const VET_SCRIPT = `
const [addon, desc] = process.argv.slice(1);
try { new (require(addon).Recognizer)(JSON.parse(desc)); }
catch (e) { process.stdout.write(JSON.stringify({ code: e.code || 'MODEL_LOAD_FAILED', message: String(e.message) })); process.exit(3); }
`;

const vetted = new Map<string, Promise<void>>();

/**
 * Loads a model once in a short-lived child process. Resolves when it loads; rejects with
 * MODEL_LOAD_FAILED (the engine's own reason) when it does not, even when the library exits.
 */
export function vetModel(spec: ModelSpec): Promise<void> {
  // Only PocketSphinx can exit() on a bad file; ONNX Runtime throws, which the worker reports.
  if (spec.engine !== 'pocketsphinx') return Promise.resolve();
  const desc = toNativeDesc(spec);
  const key = JSON.stringify(desc);
  let p = vetted.get(key);
  if (!p) {
    loadBinding(); // a clear error when the addon itself is missing
    p = runVet(desc);
    vetted.set(key, p);
    p.catch(() => vetted.delete(key)); // a fixed model can be retried
  }
  return p;
}

function runVet(desc: NativeModelDesc): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', VET_SCRIPT, ADDON_PATH, JSON.stringify(desc)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', (e) => reject(voxdexError('MODEL_LOAD_FAILED', `model ${desc.name}: could not start a check: ${e.message}`)));
    child.on('close', (code) => {
      if (code === 0) return resolve();
      let info: ErrorInfo | undefined;
      try {
        info = JSON.parse(out) as ErrorInfo;
      } catch {
        /* the library exited on its own */
      }
      const reason = info?.message ?? `model ${desc.name}: PocketSphinx aborted while loading hmm=${desc.hmm} (${err.trim().split('\n').slice(-2).join('; ') || `exit code ${code}`})`;
      reject(voxdexError('MODEL_LOAD_FAILED', reason));
    });
  });
}
