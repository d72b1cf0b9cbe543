/**
 * The GE2E speaker encoder of Resemblyzer 0.1.4 on ONNX Runtime, built in memory from the weights that
 * models/fetch-resemblyzer.sh converted (encoder.f32 + encoder.json): no torch, no model file to trust
 * beyond the checked weights.
 *
 * Two small graphs:
 * - mel: frames [N, 400] → 40-band mel power [N, 40]: the periodic Hann window folded into a real DFT
 *   matrix, power spectrum, Slaney mel filterbank with area normalisation — librosa.feature.melspectrogram
 *   (sr 16000, n_fft 400, hop 160, n_mels 40), which Resemblyzer's audio.py calls (not a log-mel);
 * - lstm: mels [B, T, 40] → embeddings [B, 256]: 3-layer LSTM 256 (torch gates i, f, g, o reordered to
 *   ONNX's i, o, f, c), the last layer's final hidden state, linear 256 → 256, ReLU, L2 normalisation.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { PACKAGE_ROOT } from '../config.js';
import { voxdexError } from '../errors.js';
import { encodeModel, type OnnxGraph } from './onnx-proto.js';

export const SAMPLE_RATE = 16000;
export const N_FFT = 400;
export const HOP = 160;
export const N_MELS = 40;
export const EMBEDDING_SIZE = 256;
/** Resemblyzer's partial utterance: 160 frames (1.6 s). */
export const PARTIAL_FRAMES = 160;
const HIDDEN = 256;
/** Where models/fetch-resemblyzer.sh installs the converted weights. */
export const ENCODER_DIR = path.join(PACKAGE_ROOT, 'models', 'build', 'resemblyzer');
const BATCH = 32;
const MEL_CHUNK = 2000;

interface Manifest {
  weights: string;
  floats: number;
  tensors: { name: string; shape: number[]; offset: number }[];
}

export interface SpeakerEncoder {
  /** Mel power frames (row-major [frames, 40]) of 16 kHz samples, centred frames with zero padding. */
  mel(samples: Float32Array): Promise<{ data: Float32Array; frames: number }>;
  /**
   * One L2-normalised embedding per window of `length` frames starting at each of `starts`; a window with
   * its own length in `lengths` has zero frames after it (a shorter utterance, zero-padded).
   */
  embedWindows(mel: Float32Array, starts: number[], length: number, lengths?: number[]): Promise<Float32Array[]>;
  /** Resemblyzer's VoiceEncoder.embed_utterance (rate 1.3, min_coverage 0.75) of 16 kHz samples. */
  embedUtterance(wav: Float32Array): Promise<Float32Array>;
  release(): Promise<void>;
}

// ---------------------------------------------------------------- librosa's Slaney mel scale

const F_SP = 200 / 3;
const MIN_LOG_HZ = 1000;
const MIN_LOG_MEL = MIN_LOG_HZ / F_SP;
const LOGSTEP = Math.log(6.4) / 27;

const hzToMel = (f: number) => (f >= MIN_LOG_HZ ? MIN_LOG_MEL + Math.log(f / MIN_LOG_HZ) / LOGSTEP : f / F_SP);
const melToHz = (m: number) => (m >= MIN_LOG_MEL ? MIN_LOG_HZ * Math.exp(LOGSTEP * (m - MIN_LOG_MEL)) : F_SP * m);

/** librosa.filters.mel(sr, n_fft, n_mels, fmin=0, fmax=sr/2, htk=False, norm='slaney'): [nMels][nFft/2+1]. */
export function melFilterbank(sr = SAMPLE_RATE, nFft = N_FFT, nMels = N_MELS): Float64Array[] {
  const bins = nFft / 2 + 1;
  const fft = Array.from({ length: bins }, (_, k) => (k * sr) / 2 / (bins - 1));
  const lo = hzToMel(0);
  const hi = hzToMel(sr / 2);
  const melF = Array.from({ length: nMels + 2 }, (_, i) => melToHz(lo + ((hi - lo) * i) / (nMels + 1)));
  return Array.from({ length: nMels }, (_, i) => {
    const row = new Float64Array(bins);
    const enorm = 2 / (melF[i + 2]! - melF[i]!);
    for (let k = 0; k < bins; k++) {
      const lower = (fft[k]! - melF[i]!) / (melF[i + 1]! - melF[i]!);
      const upper = (melF[i + 2]! - fft[k]!) / (melF[i + 2]! - melF[i + 1]!);
      row[k] = Math.max(0, Math.min(lower, upper)) * enorm;
    }
    return row;
  });
}

function melGraph(): OnnxGraph {
  const bins = N_FFT / 2 + 1;
  // [400, 2·bins]: windowed cos columns, then windowed sin columns.
  const dft = new Float32Array(N_FFT * 2 * bins);
  for (let n = 0; n < N_FFT; n++) {
    const w = 0.5 - 0.5 * Math.cos((2 * Math.PI * n) / N_FFT);
    for (let k = 0; k < bins; k++) {
      const a = (2 * Math.PI * ((k * n) % N_FFT)) / N_FFT;
      dft[n * 2 * bins + k] = w * Math.cos(a);
      dft[n * 2 * bins + bins + k] = -w * Math.sin(a);
    }
  }
  const fb = melFilterbank();
  const mel2 = new Float32Array(2 * bins * N_MELS); // [2·bins, 40]: the filterbank for re² and for im²
  for (let k = 0; k < bins; k++)
    for (let m = 0; m < N_MELS; m++) mel2[k * N_MELS + m] = mel2[(bins + k) * N_MELS + m] = fb[m]![k]!;
  return {
    name: 'resemblyzer_mel',
    opset: 14,
    inputs: [{ name: 'frames', dims: ['n', N_FFT] }],
    outputs: [{ name: 'mel', dims: ['n', N_MELS] }],
    initializers: [
      { name: 'dft', dims: [N_FFT, 2 * bins], data: dft },
      { name: 'mel2', dims: [2 * bins, N_MELS], data: mel2 },
    ],
    nodes: [
      { op: 'MatMul', inputs: ['frames', 'dft'], outputs: ['spec'] },
      { op: 'Mul', inputs: ['spec', 'spec'], outputs: ['power'] },
      { op: 'MatMul', inputs: ['power', 'mel2'], outputs: ['mel'] },
    ],
  };
}

/** torch gate blocks [i, f, g, o] → ONNX [i, o, f, c], rows of `cols` floats. */
function iofc(src: Float32Array, cols: number): Float32Array {
  const block = HIDDEN * cols;
  const out = new Float32Array(4 * block);
  [0, 3, 1, 2].forEach((from, to) => out.set(src.subarray(from * block, (from + 1) * block), to * block));
  return out;
}

function lstmGraph(get: (name: string) => Float32Array): OnnxGraph {
  const g: OnnxGraph = {
    name: 'resemblyzer_ge2e',
    opset: 14,
    inputs: [{ name: 'mels', dims: ['batch', 'time', N_MELS] }],
    outputs: [{ name: 'embeds', dims: ['batch', EMBEDDING_SIZE] }],
    initializers: [
      { name: 'axis0', dims: [1], data: [0], int64: true },
      { name: 'axis1', dims: [1], data: [1], int64: true },
    ],
    nodes: [{ op: 'Transpose', inputs: ['mels'], outputs: ['x0'], attrs: { perm: [1, 0, 2] } }],
  };
  for (let l = 0; l < 3; l++) {
    const inSize = l === 0 ? N_MELS : HIDDEN;
    const b = new Float32Array(8 * HIDDEN);
    b.set(iofc(get(`lstm.bias_ih_l${l}`), 1), 0);
    b.set(iofc(get(`lstm.bias_hh_l${l}`), 1), 4 * HIDDEN);
    g.initializers.push(
      { name: `W${l}`, dims: [1, 4 * HIDDEN, inSize], data: iofc(get(`lstm.weight_ih_l${l}`), inSize) },
      { name: `R${l}`, dims: [1, 4 * HIDDEN, HIDDEN], data: iofc(get(`lstm.weight_hh_l${l}`), HIDDEN) },
      { name: `B${l}`, dims: [1, 8 * HIDDEN], data: b },
    );
    g.nodes.push({ op: 'LSTM', inputs: [`x${l}`, `W${l}`, `R${l}`, `B${l}`], outputs: [`y${l}`, `h${l}`], attrs: { hidden_size: HIDDEN } });
    if (l < 2) g.nodes.push({ op: 'Squeeze', inputs: [`y${l}`, 'axis1'], outputs: [`x${l + 1}`] });
  }
  const lin = get('linear.weight'); // [out, in] → MatMul wants [in, out]
  const linT = new Float32Array(lin.length);
  for (let o = 0; o < EMBEDDING_SIZE; o++) for (let i = 0; i < HIDDEN; i++) linT[i * EMBEDDING_SIZE + o] = lin[o * HIDDEN + i]!;
  g.initializers.push({ name: 'linT', dims: [HIDDEN, EMBEDDING_SIZE], data: linT }, { name: 'linB', dims: [EMBEDDING_SIZE], data: get('linear.bias') });
  g.nodes.push(
    { op: 'Squeeze', inputs: ['h2', 'axis0'], outputs: ['hidden'] },
    { op: 'MatMul', inputs: ['hidden', 'linT'], outputs: ['lin'] },
    { op: 'Add', inputs: ['lin', 'linB'], outputs: ['raw'] },
    { op: 'Relu', inputs: ['raw'], outputs: ['relu'] },
    { op: 'LpNormalization', inputs: ['relu'], outputs: ['embeds'], attrs: { axis: 1, p: 2 } },
  );
  return g;
}

/** The weights named in the manifest, checked against its shapes. */
export function readEncoderWeights(dir: string): (name: string) => Float32Array {
  let manifest: Manifest;
  let buf: Buffer;
  try {
    manifest = JSON.parse(readFileSync(path.join(dir, 'encoder.json'), 'utf8')) as Manifest;
    buf = readFileSync(path.join(dir, manifest.weights));
  } catch (err) {
    throw voxdexError('MODEL_LOAD_FAILED', `the speaker encoder is not installed in ${dir} (run bash models/fetch-resemblyzer.sh): ${(err as Error).message}`, err);
  }
  if (buf.length !== manifest.floats * 4) throw voxdexError('MODEL_LOAD_FAILED', `${dir}: the weights file has ${buf.length} bytes, expected ${manifest.floats * 4}`);
  const all = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
  return (name) => {
    const t = manifest.tensors.find((x) => x.name === name);
    if (!t) throw voxdexError('MODEL_LOAD_FAILED', `${dir}: the speaker encoder has no tensor ${name}`);
    return all.subarray(t.offset, t.offset + t.shape.reduce((a, b) => a * b, 1));
  };
}

/** Frames (row-major [n, 400]) of `samples` centred every 160 samples, zero-padded by 200 on each side. */
export function frameSamples(samples: Float32Array): { data: Float32Array; frames: number } {
  const frames = 1 + Math.floor(samples.length / HOP);
  const data = new Float32Array(frames * N_FFT);
  const half = N_FFT / 2;
  for (let f = 0; f < frames; f++) {
    const start = f * HOP - half;
    const from = Math.max(0, start);
    const to = Math.min(samples.length, start + N_FFT);
    if (to > from) data.set(samples.subarray(from, to), f * N_FFT + (from - start));
  }
  return { data, frames };
}

/** `n` frames of 400 samples every 160 from `piece` (already holding the padding). */
function framesOf(piece: Float32Array, n: number): Float32Array {
  const out = new Float32Array(n * N_FFT);
  for (let f = 0; f < n; f++) out.set(piece.subarray(f * HOP, f * HOP + N_FFT), f * N_FFT);
  return out;
}

/** Resemblyzer's compute_partial_slices: start frames of the 160-frame partials and the samples to pad to. */
export function partialSlices(nSamples: number, rate = 1.3, minCoverage = 0.75): { starts: number[]; padTo: number } {
  const nFrames = Math.ceil((nSamples + 1) / HOP);
  const step = Math.round(SAMPLE_RATE / rate / HOP);
  const steps = Math.max(1, nFrames - PARTIAL_FRAMES + step + 1);
  const starts: number[] = [];
  for (let i = 0; i < steps; i += step) starts.push(i);
  const last = starts[starts.length - 1]! * HOP;
  const coverage = (nSamples - last) / (PARTIAL_FRAMES * HOP);
  if (coverage < minCoverage && starts.length > 1) starts.pop();
  return { starts, padTo: (starts[starts.length - 1]! + PARTIAL_FRAMES) * HOP };
}

export async function loadSpeakerEncoder(dir: string = ENCODER_DIR, opts: { intraOpThreads?: number } = {}): Promise<SpeakerEncoder> {
  const get = readEncoderWeights(dir);
  const options: ort.InferenceSession.SessionOptions = {
    intraOpNumThreads: opts.intraOpThreads ?? 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  };
  const melSession = await ort.InferenceSession.create(encodeModel(melGraph()), options);
  const lstmSession = await ort.InferenceSession.create(encodeModel(lstmGraph(get)), options);

  const enc: SpeakerEncoder = {
    async mel(samples) {
      // in chunks of MEL_CHUNK frames: the framed copy of a long call would be 400 floats per 10 ms
      const frames = 1 + Math.floor(samples.length / HOP);
      const data = new Float32Array(frames * N_MELS);
      for (let f0 = 0; f0 < frames; f0 += MEL_CHUNK) {
        const n = Math.min(MEL_CHUNK, frames - f0);
        const from = f0 * HOP; // frame f0 is centred here; frameSamples pads the chunk's own edges
        const piece = new Float32Array((n - 1) * HOP + N_FFT);
        const src0 = from - N_FFT / 2;
        const a = Math.max(0, src0);
        const b = Math.min(samples.length, src0 + piece.length);
        if (b > a) piece.set(samples.subarray(a, b), a - src0);
        const framed = framesOf(piece, n);
        const out = await melSession.run({ frames: new ort.Tensor('float32', framed, [n, N_FFT]) });
        data.set(out.mel!.data as Float32Array, f0 * N_MELS);
      }
      return { data, frames };
    },
    async embedWindows(mel, starts, length, lengths) {
      const out: Float32Array[] = [];
      for (let b = 0; b < starts.length; b += BATCH) {
        const batch = starts.slice(b, b + BATCH);
        const x = new Float32Array(batch.length * length * N_MELS);
        batch.forEach((s, i) => {
          const own = Math.min(length, lengths?.[b + i] ?? length);
          const src = mel.subarray(s * N_MELS, Math.min(mel.length, (s + own) * N_MELS));
          x.set(src, i * length * N_MELS); // past the end stays zero
        });
        const r = await lstmSession.run({ mels: new ort.Tensor('float32', x, [batch.length, length, N_MELS]) });
        const e = r.embeds!.data as Float32Array;
        for (let i = 0; i < batch.length; i++) out.push(e.slice(i * EMBEDDING_SIZE, (i + 1) * EMBEDDING_SIZE));
      }
      return out;
    },
    async embedUtterance(wav) {
      const { starts, padTo } = partialSlices(wav.length);
      let padded = wav;
      if (padTo >= wav.length) {
        padded = new Float32Array(padTo);
        padded.set(wav);
      }
      const { data } = await enc.mel(padded);
      const partials = await enc.embedWindows(data, starts, PARTIAL_FRAMES);
      return normalize(mean(partials));
    },
    async release() {
      await melSession.release();
      await lstmSession.release();
    },
  };
  return enc;
}

export function mean(vs: Float32Array[]): Float32Array {
  const m = new Float32Array(vs[0]?.length ?? EMBEDDING_SIZE);
  for (const v of vs) for (let i = 0; i < m.length; i++) m[i]! += v[i]! / vs.length;
  return m;
}

export function normalize(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  return v.map((x) => x / n);
}

export function cosine(a: Float32Array, b: Float32Array): number {
  let d = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    d += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return d / Math.sqrt(na * nb || 1);
}
