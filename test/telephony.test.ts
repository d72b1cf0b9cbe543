import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createAsrPool, type AsrPool } from '../src/asr/pool.js';
import { createTranscriber, type Transcriber } from '../src/asr/transcriber.js';
import { loadConfig, PACKAGE_ROOT } from '../src/config.js';
import { silentLogger } from '../src/log.js';
import type { DecodedAudio } from '../src/types.js';

// The telephony model (models/build-telephony.sh, run by scripts/install.sh) against real 8 kHz speech
// it never saw: Asterisk prompts whose names start with m-z are held out of adaptation.
const MODEL_DIR = path.join(PACKAGE_ROOT, 'models', 'build', 'en-us-8k');
const STOCK = '/usr/share/pocketsphinx/model/en-us/en-us';
const PROMPT = '/usr/share/asterisk/sounds/en_US_f_Allison/vm-reachoper.wav';
const PROMPT_TEXT = 'press zero to reach an operator'; // core-sounds-en.txt: "press 0 to reach an operator"

const t = suite('telephony model en-us-8k');
let dir = '';
let pool: AsrPool;
let transcriber: Transcriber;

/** Word-level Levenshtein distance. */
function wordErrors(ref: string[], hyp: string[]): number {
  let prev = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i++) {
    const cur = [i];
    for (let j = 1; j <= hyp.length; j++) {
      cur.push(Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1)));
    }
    prev = cur;
  }
  return prev[hyp.length]!;
}

/** A G.711 mu-law round trip of a real 8 kHz prompt, read back as 8 kHz DecodedAudio. */
function muLawCall(wav: string): DecodedAudio {
  const ul = path.join(dir, 'call.ul.wav');
  const raw = path.join(dir, 'call.raw');
  execFileSync('sox', [wav, '-e', 'mu-law', ul]);
  execFileSync('sox', [ul, '-t', 'raw', '-e', 'signed', '-b', '16', raw]);
  const b = readFileSync(raw);
  const pcm = new Int16Array(b.buffer, b.byteOffset, b.length / 2);
  const samples = Float32Array.from(pcm, (s) => s / 32768);
  return { format: { encoding: 'mulaw', sampleRate: 8000, channels: 1, bitsPerSample: 8 }, channels: [samples], durationSec: samples.length / 8000, warnings: [] };
}

async function transcript(model: string, audio: DecodedAudio): Promise<string[]> {
  const r = await transcriber.transcribe(audio, { model, source: 'vm-reachoper.wav' });
  assert.is(r.model, model);
  return r.utterances.flatMap((u) => u.events.map((w) => w.word));
}

t.before(async () => {
  if (!existsSync(path.join(MODEL_DIR, 'sendump'))) {
    throw new Error(`${MODEL_DIR} is not built: run bash models/build-telephony.sh (scripts/install.sh does)`);
  }
  dir = mkdtempSync(path.join(os.tmpdir(), 'voxdex-telephony-'));
  pool = createAsrPool({ threads: 1 });
  transcriber = createTranscriber({ config: loadConfig({ VOXDEX_ASR_THREADS: '1' }), log: silentLogger, pool });
  await transcriber.ready();
});

t.after(async () => {
  await transcriber?.close();
  await pool?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

t('transcribes a held-out 8 kHz mu-law prompt with at most one word wrong, and better than the stock model', async () => {
  const audio = muLawCall(PROMPT);
  const ref = PROMPT_TEXT.split(' ');
  const tel = await transcript('en-us-8k', audio);
  const stock = await transcript('en-us', audio);
  const telErrors = wordErrors(ref, tel);
  const stockErrors = wordErrors(ref, stock);
  assert.ok(telErrors <= 1, `en-us-8k heard "${tel.join(' ')}" (${telErrors} word errors)`);
  assert.ok(stockErrors > telErrors, `stock en-us heard "${stock.join(' ')}" (${stockErrors} errors), en-us-8k ${telErrors}`);
});

t('reconstructs the stock sendump byte for byte from its mixture weights (the adaptation round trip)', () => {
  const mixw = path.join(dir, 'mixture_weights');
  const mdef = path.join(dir, 'mdef.txt');
  const sendump = path.join(dir, 'sendump');
  execFileSync('python3', [path.join(PACKAGE_ROOT, 'models', 'telephony', 'sendump-to-mixw.py'), path.join(STOCK, 'sendump'), mixw], { stdio: 'pipe' });
  execFileSync('pocketsphinx_mdef_convert', ['-text', path.join(STOCK, 'mdef'), mdef], { stdio: 'pipe' });
  execFileSync('/usr/lib/sphinxtrain/mk_s2sendump', ['-pocketsphinx', 'yes', '-moddeffn', mdef, '-mixwfn', mixw, '-mwfloor', '1e-20', '-sendumpfn', sendump], { stdio: 'pipe' });
  assert.ok(readFileSync(sendump).equals(readFileSync(path.join(STOCK, 'sendump'))), 'sendump differs from the stock one');
});

t('a second build with the same pinned inputs is a cached no-op', () => {
  const out = execFileSync('bash', [path.join(PACKAGE_ROOT, 'models', 'build-telephony.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  assert.match(out, /en-us-8k is up to date .*cached/);
});

t.run();
