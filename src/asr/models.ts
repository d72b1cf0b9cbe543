/**
 * The model registry: models/registry.json (or VOXDEX_MODELS_FILE) names every model the API's
 * `model` parameter accepts. Validated here, at the edge; the native engine trusts what it gets.
 *
 *   { "default": "auto",
 *     "models": [ { "name": "en-us", "aliases": ["en"], "engine": "pocketsphinx", "sampleRate": 16000,
 *                   "hmm": "...", "dict": "...", "lm": "...", "options": { "-beam": "1e-48" } } ] }
 *
 * Relative paths are relative to the package root. `auto` picks, per file, the telephony model (the
 * first available model whose inputRate is ≤ 11025 Hz) for audio at ≤ 11025 Hz, else the first
 * wideband model.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../config.js';
import { voxdexError } from '../errors.js';

export const AUTO = 'auto';
/** Audio at or below this rate is telephone-band: `auto` prefers a telephony model for it. */
export const TELEPHONY_MAX_RATE = 11025;
export const ENGINES = ['pocketsphinx'] as const;
export type EngineName = (typeof ENGINES)[number];

export interface ModelSpec {
  name: string;
  aliases: string[];
  description: string;
  engine: EngineName;
  /** The rate the engine decodes at; audio is resampled to it. */
  sampleRate: number;
  /**
   * The audio rate the model is made for (≤ sampleRate, default sampleRate): a telephony model that
   * decodes 8 kHz calls upsampled to 16 kHz says 8000. `auto` matches the audio's rate against this.
   */
  inputRate: number;
  /** Acoustic model directory. */
  hmm: string;
  dict: string;
  /** Language model; '' when options name a grammar instead (e.g. -jsgf). */
  lm: string;
  /** Engine flags passed as they are, e.g. { "-beam": "1e-60" }. */
  options: Record<string, string>;
}

export interface ModelRegistry {
  readonly file: string;
  /** Names the API accepts whose files are present; the first is the default ('auto' unless set). */
  list(): string[];
  /** Every model in the file, present or not. */
  specs(): ModelSpec[];
  /** Whether a model's files are all present. */
  isAvailable(spec: ModelSpec): boolean;
  /** The model for a name or alias (or 'auto') and the audio's rate. Throws UNKNOWN_MODEL / MODEL_LOAD_FAILED. */
  resolve(name: string | undefined, sampleRate: number): ModelSpec;
}

const HMM_FILES = ['mdef', 'means', 'variances', 'transition_matrices'];

/** The first missing file of a model, or undefined when all are present. */
export function missingModelFile(spec: ModelSpec): string | undefined {
  if (!isDir(spec.hmm)) return spec.hmm;
  for (const f of HMM_FILES) if (!existsSync(path.join(spec.hmm, f))) return path.join(spec.hmm, f);
  if (!existsSync(path.join(spec.hmm, 'sendump')) && !existsSync(path.join(spec.hmm, 'mixture_weights'))) {
    return path.join(spec.hmm, 'mixture_weights (or sendump)');
  }
  if (!isFile(spec.dict)) return spec.dict;
  if (spec.lm && !isFile(spec.lm)) return spec.lm;
  return undefined;
}

/** Throws MODEL_LOAD_FAILED naming the missing file. */
export function checkModelFiles(spec: ModelSpec): void {
  const missing = missingModelFile(spec);
  if (missing) throw voxdexError('MODEL_LOAD_FAILED', `model ${spec.name}: ${missing} does not exist; see docs/asr.md to install or build it`);
}

export function loadModelRegistry(file: string, root: string = PACKAGE_ROOT): ModelRegistry {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw voxdexError('MODEL_LOAD_FAILED', `models file ${file} is not readable JSON: ${(err as Error).message}`);
  }
  return createModelRegistry(raw, file, root);
}

/** Builds a registry from an already parsed registry object (tests, --hmm overrides). */
export function createModelRegistry(raw: unknown, file: string, root: string = PACKAGE_ROOT): ModelRegistry {
  const bad = (what: string) => voxdexError('MODEL_LOAD_FAILED', `models file ${file}: ${what}`);
  if (!isObject(raw) || !Array.isArray(raw.models)) throw bad('expected {"default": ..., "models": [...]}');
  const specs: ModelSpec[] = raw.models.map((m: unknown, i: number) => parseSpec(m, `models[${i}]`, root, bad));
  const byName = new Map<string, ModelSpec>();
  for (const spec of specs) {
    for (const n of [spec.name, ...spec.aliases]) {
      if (n === AUTO || byName.has(n)) throw bad(`model name ${JSON.stringify(n)} is used twice (or is "auto")`);
      byName.set(n, spec);
    }
  }
  const def = raw.default === undefined ? AUTO : raw.default;
  if (typeof def !== 'string' || (def !== AUTO && !byName.has(def))) throw bad(`default ${JSON.stringify(def)} names no model`);

  const availability = new Map<ModelSpec, boolean>();
  const isAvailable = (spec: ModelSpec) => {
    let ok = availability.get(spec);
    if (ok === undefined) availability.set(spec, (ok = missingModelFile(spec) === undefined));
    return ok;
  };
  const pickAuto = (sampleRate: number): ModelSpec => {
    const present = specs.filter(isAvailable);
    const narrow = present.find((s) => s.inputRate <= TELEPHONY_MAX_RATE);
    const wide = present.find((s) => s.inputRate > TELEPHONY_MAX_RATE);
    const spec = sampleRate <= TELEPHONY_MAX_RATE ? (narrow ?? wide) : (wide ?? narrow);
    if (!spec) throw voxdexError('MODEL_LOAD_FAILED', `no model in ${file} has its files installed; see docs/asr.md`);
    return spec;
  };

  return {
    file,
    list() {
      const names = specs.filter(isAvailable).map((s) => s.name);
      const first = def === AUTO ? AUTO : byName.get(def)!.name;
      return [first, ...names.filter((n) => n !== first), ...(def === AUTO ? [] : [AUTO])];
    },
    specs: () => specs.slice(),
    isAvailable,
    resolve(name, sampleRate) {
      const wanted = name === undefined || name === '' ? def : name;
      if (wanted === AUTO) return pickAuto(sampleRate);
      const spec = byName.get(wanted);
      if (!spec) throw voxdexError('UNKNOWN_MODEL', `unknown model ${JSON.stringify(wanted)}; available: ${this.list().join(', ')}`);
      checkModelFiles(spec);
      return spec;
    },
  };
}

function parseSpec(m: unknown, where: string, root: string, bad: (what: string) => Error): ModelSpec {
  if (!isObject(m)) throw bad(`${where} must be an object`);
  const str = (key: string, optional = false): string => {
    const v = m[key];
    if (v === undefined && optional) return '';
    if (typeof v !== 'string' || (!optional && v === '')) throw bad(`${where}.${key} must be a non-empty string`);
    return v;
  };
  const name = str('name');
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name)) throw bad(`${where}.name ${JSON.stringify(name)} must match [A-Za-z0-9_.-]{1,64}`);
  const aliases = m.aliases ?? [];
  if (!Array.isArray(aliases) || !aliases.every((a) => typeof a === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(a))) {
    throw bad(`${where}.aliases must be an array of names`);
  }
  const engine = m.engine ?? 'pocketsphinx';
  if (!ENGINES.includes(engine as EngineName)) throw bad(`${where}.engine must be one of ${ENGINES.join(', ')}`);
  const sampleRate = m.sampleRate;
  if (typeof sampleRate !== 'number' || !Number.isInteger(sampleRate) || sampleRate < 8000 || sampleRate > 48000) {
    throw bad(`${where}.sampleRate must be an integer between 8000 and 48000`);
  }
  const inputRate = m.inputRate ?? sampleRate;
  if (typeof inputRate !== 'number' || !Number.isInteger(inputRate) || inputRate < 8000 || inputRate > sampleRate) {
    throw bad(`${where}.inputRate must be an integer between 8000 and sampleRate (${sampleRate})`);
  }
  const options = m.options ?? {};
  if (!isObject(options) || !Object.entries(options).every(([k, v]) => /^-[A-Za-z_][A-Za-z0-9_]*$/.test(k) && typeof v === 'string')) {
    throw bad(`${where}.options must map engine flags ("-name") to string values`);
  }
  const abs = (p: string) => (p === '' ? '' : path.resolve(root, p));
  return {
    name,
    aliases: aliases as string[],
    description: str('description', true),
    engine: engine as EngineName,
    sampleRate,
    inputRate,
    hmm: abs(str('hmm')),
    dict: abs(str('dict')),
    lm: abs(str('lm', true)),
    options: { ...(options as Record<string, string>) },
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}
