/**
 * G.711 (ITU-T) mu-law and A-law, by lookup table. Decoding gives the 16-bit linear values of the
 * ITU reference (as SoX and the Sun g711.c produce them: mu-law ±32124, A-law ±32256); the Float32
 * tables are those values / 32768. Encoding is the ITU rounding of a 16-bit sample (Sun g711.c).
 */

function mulawToLinear(code: number): number {
  const u = ~code & 0xff;
  let t = ((u & 0x0f) << 3) + 0x84;
  t <<= (u & 0x70) >> 4;
  return u & 0x80 ? 0x84 - t : t - 0x84;
}

function alawToLinear(code: number): number {
  const a = code ^ 0x55;
  let t = (a & 0x0f) << 4;
  const seg = (a & 0x70) >> 4;
  if (seg === 0) t += 8;
  else if (seg === 1) t += 0x108;
  else t = (t + 0x108) << (seg - 1);
  return a & 0x80 ? t : -t;
}

function buildInt16(decode: (code: number) => number): Int16Array {
  const table = new Int16Array(256);
  for (let i = 0; i < 256; i++) table[i] = decode(i);
  return table;
}

function toFloat(table: Int16Array): Float32Array {
  const out = new Float32Array(256);
  for (let i = 0; i < 256; i++) out[i] = table[i]! / 32768;
  return out;
}

/** code (0..255) → 16-bit linear sample. */
export const MULAW_TO_INT16: Readonly<Int16Array> = buildInt16(mulawToLinear);
export const ALAW_TO_INT16: Readonly<Int16Array> = buildInt16(alawToLinear);
/** code (0..255) → sample in [-1, 1). */
export const MULAW_TO_FLOAT: Readonly<Float32Array> = toFloat(MULAW_TO_INT16);
export const ALAW_TO_FLOAT: Readonly<Float32Array> = toFloat(ALAW_TO_INT16);

const SEG_UEND = [0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff, 0x1fff];
const SEG_AEND = [0x1f, 0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff];

function search(value: number, table: number[]): number {
  for (let i = 0; i < 8; i++) if (value <= table[i]!) return i;
  return 8;
}

/** 16-bit linear sample → mu-law code (ITU G.711 as in Sun g711.c: bias 0x84, clip 8159 in 14 bits). */
export function linearToMulaw(sample: number): number {
  let pcm = sample >> 2;
  let mask = 0xff;
  if (pcm < 0) {
    pcm = -pcm;
    mask = 0x7f;
  }
  if (pcm > 8159) pcm = 8159;
  pcm += 0x84 >> 2;
  const seg = search(pcm, SEG_UEND);
  if (seg >= 8) return 0x7f ^ mask;
  return ((seg << 4) | ((pcm >> (seg + 1)) & 0x0f)) ^ mask;
}

/** 16-bit linear sample → A-law code (ITU G.711 as in Sun g711.c). */
export function linearToAlaw(sample: number): number {
  let pcm = sample >> 3;
  let mask = 0xd5;
  if (pcm < 0) {
    mask = 0x55;
    pcm = -pcm - 1;
  }
  const seg = search(pcm, SEG_AEND);
  if (seg >= 8) return 0x7f ^ mask;
  const aval = (seg << 4) | (seg < 2 ? (pcm >> 1) & 0x0f : (pcm >> seg) & 0x0f);
  return aval ^ mask;
}

/** Encodes 16-bit samples to G.711 bytes. */
export function encodeG711(samples: Int16Array, law: 'mulaw' | 'alaw'): Uint8Array {
  const out = new Uint8Array(samples.length);
  const enc = law === 'mulaw' ? linearToMulaw : linearToAlaw;
  for (let i = 0; i < samples.length; i++) out[i] = enc(samples[i]!);
  return out;
}
