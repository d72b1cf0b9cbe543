/**
 * The real-speech test sets every ASR benchmark uses (Debian packages; /work/shared/audio/README.md).
 * Each item loads as DecodedAudio through voxdex's own decoders; G.711 and band-limited variants are
 * made by SoX, as a phone network would.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { decodeWav, decodeWavBuffer } from '../../src/stages/decode.js';
import { MEETING_IDS, meetingBytes } from '../../test/fixtures/meetings.js';
import type { DecodedAudio } from '../../src/types.js';

export const DATA = '/usr/share/pocketsphinx/test/data';
export const ASTERISK = '/usr/share/asterisk/sounds/en_US_f_Allison';
const ASTERISK_TEXT = '/usr/share/doc/asterisk-core-sounds-en/core-sounds-en.txt.gz';
const ALSA = '/usr/share/sounds/alsa';
/** Tux Paint's spoken stamp descriptions (Debian tuxpaint-stamps-default): volunteers' voices, English text beside them. */
export const TUXPAINT = '/usr/share/tuxpaint/stamps';

export interface Item {
  id: string;
  ref: string;
  load(): Promise<DecodedAudio>;
}

export interface SetInfo {
  items: Item[];
  /** Why a set is empty (a package is missing), for the table. */
  missing?: string;
}

export function rawAudio(file: string, rate: number): DecodedAudio {
  const b = readFileSync(file);
  const pcm = new Int16Array(b.buffer, b.byteOffset, Math.floor(b.length / 2));
  const ch = Float32Array.from(pcm, (v) => v / 32768);
  return { format: { encoding: 'pcm_s16', sampleRate: rate, channels: 1, bitsPerSample: 16 }, channels: [ch], durationSec: ch.length / rate, warnings: [] };
}

/** Runs sox on an input (a file, or raw 16 kHz s16 when it ends in .raw) and decodes the WAV it writes. */
async function soxed(tmp: string, input: string, tag: string, outArgs: string[], effects: string[] = []): Promise<DecodedAudio> {
  const out = path.join(tmp, `${tag}-${path.basename(input).replace(/\.\w+$/, '')}-${process.hrtime.bigint()}.wav`);
  const inArgs = input.endsWith('.raw') ? ['-t', 'raw', '-r', '16000', '-e', 'signed', '-b', '16', '-c', '1', input] : [input];
  execFileSync('sox', ['-V1', ...inArgs, ...outArgs, out, ...effects]);
  try {
    return await decodeWav(out);
  } finally {
    rmSync(out, { force: true });
  }
}

const g711 = (tmp: string, file: string, law: 'u-law' | 'a-law') => soxed(tmp, file, law, ['-e', law, '-b', '8']);
/** What a phone line makes of wideband speech: 300–3400 Hz, 8 kHz, mu-law. */
const telephone = (tmp: string, file: string) => soxed(tmp, file, 'tel', ['-r', '8000', '-e', 'u-law', '-b', '8'], ['sinc', '300-3400']);

let soxTmp = os.tmpdir();
function load(file: string): () => Promise<DecodedAudio> {
  if (file.endsWith('.raw')) return async () => rawAudio(file, 16000);
  // voxdex takes 8–16 kHz; ALSA's announcements are 48 kHz: SoX brings them to 16 kHz.
  if (file.startsWith(ALSA)) return () => soxed(soxTmp, file, 'wb', ['-r', '16000', '-e', 'signed', '-b', '16']);
  return () => decodeWav(file);
}

/** Real 16 kHz speech: LibriVox (5), cards (5), goforward, something, tidigits, ALSA's channel announcements (8). */
function widebandFiles(): Array<{ id: string; ref: string; file: string }> {
  const out: Array<{ id: string; ref: string; file: string }> = [];
  const lv = path.join(DATA, 'librivox');
  const ids = readFileSync(path.join(lv, 'fileids'), 'utf8').split('\n').filter(Boolean);
  const refs = readFileSync(path.join(lv, 'transcription'), 'utf8').split('\n').filter(Boolean);
  ids.forEach((id, i) => out.push({ id, ref: refs[i]!.replace(/\([^)]+\)\s*$/, ''), file: path.join(lv, `${id}.wav`) }));
  for (const line of readFileSync(path.join(DATA, 'cards', 'cards.transcription'), 'utf8').split('\n').filter((l) => l.trim())) {
    const id = /\(([^)]+)\)\s*$/.exec(line)![1]!;
    out.push({ id: `cards-${id}`, ref: line.replace(/\([^)]+\)\s*$/, ''), file: path.join(DATA, 'cards', `${id}.wav`) });
  }
  out.push({ id: 'goforward', ref: 'go forward ten meters', file: path.join(DATA, 'goforward.raw') });
  out.push({ id: 'something', ref: 'go somewhere and do something', file: path.join(DATA, 'something.raw') });
  out.push({ id: 'tidigits-dhd', ref: 'two nine three four zero', file: path.join(DATA, 'tidigits', 'dhd.2934z.raw') });
  if (existsSync(ALSA)) {
    for (const f of readdirSync(ALSA).filter((f) => f.endsWith('.wav') && f !== 'Noise.wav').sort()) {
      out.push({ id: `alsa-${f}`, ref: f.replace('.wav', '').replace(/_/g, ' '), file: path.join(ALSA, f) });
    }
  }
  return out;
}

function asteriskItems(tmp: string, split: 'tune' | 'heldout', encoding: 'pcm' | 'mulaw' | 'alaw', limit: number): Item[] {
  const lines = gunzipSync(readFileSync(ASTERISK_TEXT)).toString('utf8').split('\n');
  const all: Item[] = [];
  for (const line of lines) {
    const m = /^([^;:\s][^:]*):\s*(.+)$/.exec(line.trim());
    if (!m) continue;
    const [, name, text] = m as unknown as [string, string, string];
    if (text.includes('[')) continue; // non-speech entries
    const file = path.join(ASTERISK, `${name}.wav`);
    if (!existsSync(file)) continue;
    if ((split === 'tune') !== name.toLowerCase()[0]! < 'm') continue;
    const l = encoding === 'pcm' ? load(file) : () => g711(tmp, file, encoding === 'mulaw' ? 'u-law' : 'a-law');
    all.push({ id: name, ref: text, load: l });
  }
  all.sort((a, b) => (a.id < b.id ? -1 : 1));
  if (!limit || all.length <= limit) return all;
  return Array.from({ length: limit }, (_, i) => all[Math.floor((i * all.length) / limit)]!);
}

/** Digit strings: TIDIGITS' own speaker (16 kHz), and 7-digit strings of real 8 kHz digit recordings with pauses (the Asterisk voice). */
function digitItems(tmp: string): Item[] {
  const items: Item[] = [{ id: 'tidigits-dhd', ref: 'two nine three four zero', load: load(path.join(DATA, 'tidigits', 'dhd.2934z.raw')) }];
  let seed = 12345;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const words = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
  for (let n = 0; n < 10; n++) {
    const digits = Array.from({ length: 7 }, () => Math.floor(rnd() * 10));
    const pauses = digits.map(() => (0.05 + rnd() * 0.3).toFixed(2));
    items.push({
      id: `digits-${digits.join('')}`,
      ref: digits.map((d) => words[d]).join(' '),
      load: async () => {
        const out = path.join(tmp, `digits-${n}.wav`);
        // Each recording padded with its pause, then joined.
        const parts = digits.map((d, i) => {
          const p = path.join(tmp, `d${n}-${i}.wav`);
          execFileSync('sox', [path.join(ASTERISK, 'digits', `${d}.wav`), p, 'pad', '0', pauses[i]!]);
          return p;
        });
        execFileSync('sox', [...parts, out]);
        for (const p of parts) rmSync(p, { force: true });
        try {
          return await decodeWav(out);
        } finally {
          rmSync(out, { force: true });
        }
      },
    });
  }
  return items;
}

function tuxpaintItems(): SetInfo {
  if (!existsSync(TUXPAINT)) return { items: [], missing: 'apt-get install tuxpaint-stamps-default' };
  const items: Item[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(dir, name.name);
      if (name.isDirectory()) walk(p);
      else if (name.name.endsWith('_desc.ogg')) {
        const txt = p.replace(/_desc\.ogg$/, '.txt');
        const ref = existsSync(txt) ? readFileSync(txt, 'utf8').split('\n')[0]!.trim() : '';
        if (ref && !ref.includes('=')) items.push({ id: path.relative(TUXPAINT, p), ref, load: () => oggAudio(p) });
      }
    }
  };
  walk(TUXPAINT);
  return { items };
}

let oggTmp = '';
async function oggAudio(file: string): Promise<DecodedAudio> {
  return soxed(oggTmp, file, 'ogg', ['-r', '16000', '-c', '1', '-e', 'signed', '-b', '16']);
}

export const SET_NAMES = [
  'ast-al', 'ast-al-mulaw', 'ast-al-alaw', 'ast-mz', 'ast-mz-mulaw', 'ast-mz-alaw', 'wideband', 'wb-tel', 'digits',
] as const;

export function loadSet(name: string, tmp: string, limit: number): SetInfo {
  oggTmp = tmp;
  soxTmp = tmp;
  const ast = /^ast-(al|mz)(?:-(mulaw|alaw))?$/.exec(name);
  if (ast) return { items: asteriskItems(tmp, ast[1] === 'al' ? 'tune' : 'heldout', (ast[2] as 'mulaw' | 'alaw' | undefined) ?? 'pcm', limit) };
  if (name === 'wideband') return { items: widebandFiles().map((f) => ({ id: f.id, ref: f.ref, load: load(f.file) })) };
  if (name === 'wb-tel') return { items: widebandFiles().map((f) => ({ id: f.id, ref: f.ref, load: () => telephone(tmp, f.file) })) };
  if (name === 'digits') return { items: digitItems(tmp) };
  if (name === 'tuxpaint') return tuxpaintItems();
  // The shared real meetings (10 × 30 s, 2–4 speakers): no transcripts, so no WER; they compare models
  // with each other (bench/wer.ts: words differing from the first model).
  if (name === 'meetings' || name === 'meetings-tel') {
    const band = name === 'meetings' ? '16k' : '8k';
    return { items: MEETING_IDS.map((id) => ({ id, ref: '', load: async () => decodeWavBuffer(meetingBytes(id, band)) })) };
  }
  throw new Error(`unknown set ${name}; sets: ${SET_NAMES.join(', ')}, tuxpaint, meetings, meetings-tel`);
}
