/**
 * The model registry: models/registry.json (or VOXDEX_MODELS_FILE) names every model the API's
 * `model` parameter accepts. Validated here, at the edge; the native engine trusts what it gets.
 *
 *   { "default": "auto",
 *     "models": [ { "name": "en-us", "aliases": ["en"], "engine": "pocketsphinx", "sampleRate": 16000,
 *                   "hmm": "...", "dict": "...", "lm": "...", "options": { "-beam": "1e-48" } } ] }
 *
 * Relative paths are relative to the package root. `auto` picks, per file, the first available model
 * that serves the audio's band: narrowband (≤ 11025 Hz) or wideband. A model's `auto` list names the
 * bands it serves (default: narrowband when its inputRate is ≤ 11025 Hz, else wideband).
 *
 * A `moonshine` model names its directory (`dir`) and the PocketSphinx models that align its words
 * per band (`align`: { "narrowband": "en-us-8k", "wideband": "en-us" }; their acoustic model and
 * dictionary are used, without the language model).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../config.js';
import { voxdexError } from '../errors.js';

export const AUTO = 'auto';
/** Audio at or below this rate is telephone-band: `auto` prefers a telephony model for it. */
export const TELEPHONY_MAX_RATE = 11025;
export const ENGINES = ['pocketsphinx', 'moonshine'] as const;
export type EngineName = (typeof ENGINES)[number];
export const BANDS = ['narrowband', 'wideband'] as const;
export type Band = (typeof BANDS)[number];
/** The band of audio at a sample rate. */
export const bandOf = (sampleRate: number): Band => (sampleRate <= TELEPHONY_MAX_RATE ? 'narrowband' : 'wideband');
/** Files a Moonshine model directory holds: each graph as folded ONNX (`.onnx`) or official ORT format (`.ort`). */
export const MOONSHINE_MODEL_FILES = [['encoder_model.onnx', 'encoder_model.ort'], ['decoder_model_merged.onnx', 'decoder_model_merged.ort'], ['tokenizer.bin']];

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
  /** The bands `auto` may pick this model for. */
  auto: Band[];
  /** Moonshine: the model directory ('' for PocketSphinx). */
  dir: string;
  /** Moonshine: registry names of the PocketSphinx models whose acoustic model + dictionary align its words. */
  align: Partial<Record<Band, string>>;
  /** Longest utterance handed to the engine in one piece (seconds); the segmenter cuts longer speech. */
  maxUtteranceSec?: number;
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
  /**
   * The aligner for a text-only model and the audio's rate: its `align` model for that band (else the
   * other band's) as a PocketSphinx spec without language model; undefined when none is installed.
   */
  aligner(spec: ModelSpec, sampleRate: number): ModelSpec | undefined;
  /** What the service loads up front: the models `auto` can pick, and their aligners. */
  eager(): ModelSpec[];
}

const HMM_FILES = ['mdef', 'means', 'variances', 'transition_matrices'];

/** The first missing file of a model, or undefined when all are present. */
export function missingModelFile(spec: ModelSpec): string | undefined {
  if (spec.engine === 'moonshine') {
    for (const alternatives of MOONSHINE_MODEL_FILES) {
      if (!alternatives.some((f) => isFile(path.join(spec.dir, f)))) return path.join(spec.dir, alternatives.at(-1)!);
    }
    return undefined;
  }
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
  if (missing) {
    const how = spec.engine === 'moonshine' ? 'run `bash models/fetch-moonshine.sh && bash models/fold-moonshine.sh && bash models/quantize-moonshine.sh` (scripts/install.sh does)' : 'see docs/asr.md to install or build it';
    throw voxdexError('MODEL_LOAD_FAILED', `model ${spec.name}: ${missing} does not exist; ${how}`);
  }
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
  for (const spec of specs) {
    for (const [band, n] of Object.entries(spec.align)) {
      const target = byName.get(n);
      if (!target || target.engine !== 'pocketsphinx') throw bad(`model ${spec.name}: align.${band} ${JSON.stringify(n)} names no PocketSphinx model`);
    }
  }
  const autoFor = (band: Band): ModelSpec | undefined => {
    const present = specs.filter(isAvailable);
    return present.find((s) => s.auto.includes(band)) ?? present.find((s) => s.auto.length > 0) ?? present[0];
  };
  const pickAuto = (sampleRate: number): ModelSpec => {
    const spec = autoFor(bandOf(sampleRate));
    if (!spec) throw voxdexError('MODEL_LOAD_FAILED', `no model in ${file} has its files installed; see docs/asr.md`);
    return spec;
  };
  const alignerFor = (spec: ModelSpec, sampleRate: number): ModelSpec | undefined => {
    const band = bandOf(sampleRate);
    const other: Band = band === 'narrowband' ? 'wideband' : 'narrowband';
    for (const n of [spec.align[band], spec.align[other]]) {
      const target = n === undefined ? undefined : byName.get(n);
      if (target && isAvailable(target)) return { ...target, name: `${target.name}-align`, aliases: [], lm: '', auto: [], options: { ...target.options, ...ALIGN_OPTIONS } };
    }
    return undefined;
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
    aligner: alignerFor,
    eager() {
      const out: ModelSpec[] = [];
      for (const [band, rate] of [['narrowband', 8000], ['wideband', 16000]] as const) {
        const spec = autoFor(band);
        if (!spec) continue;
        const a = alignerFor(spec, rate);
        for (const s of a ? [spec, a] : [spec]) if (!out.some((o) => o.name === s.name)) out.push(s);
      }
      return out;
    },
  };
}

/** Search settings of an aligner: wide beams (a linear grammar is small) and no language model. */
const ALIGN_OPTIONS: Record<string, string> = { '-beam': '1e-80', '-wbeam': '1e-60', '-pbeam': '1e-80' };

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
  const isMoonshine = engine === 'moonshine';
  if (isMoonshine && m.sampleRate !== 16000) throw bad(`${where}.sampleRate must be 16000 for a moonshine model`);
  const sampleRate = m.sampleRate;
  if (typeof sampleRate !== 'number' || !Number.isInteger(sampleRate) || sampleRate < 8000 || sampleRate > 48000) {
    throw bad(`${where}.sampleRate must be an integer between 8000 and 48000`);
  }
  const inputRate = m.inputRate ?? sampleRate;
  if (typeof inputRate !== 'number' || !Number.isInteger(inputRate) || inputRate < 8000 || inputRate > sampleRate) {
    throw bad(`${where}.inputRate must be an integer between 8000 and sampleRate (${sampleRate})`);
  }
  const auto = m.auto ?? [inputRate <= TELEPHONY_MAX_RATE ? 'narrowband' : 'wideband'];
  if (!Array.isArray(auto) || !auto.every((b) => BANDS.includes(b as Band))) throw bad(`${where}.auto must be an array of ${BANDS.join(' / ')}`);
  const align = m.align ?? {};
  if (!isObject(align) || !Object.entries(align).every(([k, v]) => BANDS.includes(k as Band) && typeof v === 'string')) {
    throw bad(`${where}.align must map ${BANDS.join(' / ')} to model names`);
  }
  const maxUtt = m.maxUtteranceSec;
  if (maxUtt !== undefined && (typeof maxUtt !== 'number' || !(maxUtt >= 2 && maxUtt <= 64))) throw bad(`${where}.maxUtteranceSec must be a number of seconds from 2 to 64`);
  const options = m.options ?? {};
  const flag = isMoonshine ? /^[A-Za-z_][A-Za-z0-9_]*$/ : /^-[A-Za-z_][A-Za-z0-9_]*$/;
  if (!isObject(options) || !Object.entries(options).every(([k, v]) => flag.test(k) && typeof v === 'string')) {
    throw bad(`${where}.options must map engine ${isMoonshine ? 'settings ("name")' : 'flags ("-name")'} to string values`);
  }
  const abs = (p: string) => (p === '' ? '' : path.resolve(root, p));
  return {
    name,
    aliases: aliases as string[],
    description: str('description', true),
    engine: engine as EngineName,
    sampleRate,
    inputRate,
    hmm: abs(str('hmm', isMoonshine)),
    dict: abs(str('dict', isMoonshine)),
    lm: abs(str('lm', true)),
    options: { ...(options as Record<string, string>) },
    auto: auto as Band[],
    dir: abs(str('dir', !isMoonshine)),
    align: { ...(align as Record<string, string>) },
    ...(maxUtt === undefined ? {} : { maxUtteranceSec: maxUtt }),
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
