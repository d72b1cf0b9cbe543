import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import alawmulaw from 'alawmulaw';
import { ALAW_TO_FLOAT, ALAW_TO_INT16, MULAW_TO_FLOAT, MULAW_TO_INT16, encodeG711, linearToAlaw, linearToMulaw } from '../src/audio/g711.js';
import { makeTempDir, removeDir, run, writeFile } from './fixtures/make-audio.js';

const g711 = suite('g711');
let dir = '';

g711.before(() => {
  dir = makeTempDir('voxdex-g711-');
});
g711.after(() => removeDir(dir));

/** All 256 codes decoded by sox to 16-bit signed raw. */
async function soxDecode(law: 'mu-law' | 'a-law'): Promise<Int16Array> {
  const codes = writeFile(dir, `${law}.raw`, Uint8Array.from({ length: 256 }, (_, i) => i));
  const out = path.join(dir, `${law}.s16`);
  await run('sox', ['-D', '-t', 'raw', '-e', law, '-r', '8000', '-b', '8', '-c', '1', codes, '-t', 'raw', '-e', 'signed', '-b', '16', out]);
  const b = readFileSync(out);
  return new Int16Array(b.buffer, b.byteOffset, b.length / 2);
}

g711('decodes all 256 mu-law codes exactly as sox does', async () => {
  const ref = await soxDecode('mu-law');
  assert.is(ref.length, 256);
  assert.equal(Array.from(MULAW_TO_INT16), Array.from(ref));
  assert.is(MULAW_TO_INT16[0x00], -32124);
  assert.is(MULAW_TO_INT16[0x80], 32124);
  assert.is(MULAW_TO_INT16[0xff], 0);
});

g711('decodes all 256 A-law codes exactly as sox does', async () => {
  const ref = await soxDecode('a-law');
  assert.equal(Array.from(ALAW_TO_INT16), Array.from(ref));
  assert.is(ALAW_TO_INT16[0xaa], 32256);
  assert.is(ALAW_TO_INT16[0x2a], -32256);
  assert.is(ALAW_TO_INT16[0xd5], 8);
});

g711('decodes all 256 codes of both laws exactly as the alawmulaw package does', () => {
  for (let c = 0; c < 256; c++) {
    assert.is(MULAW_TO_INT16[c], alawmulaw.mulaw.decodeSample(c), `mu-law code ${c}`);
    assert.is(ALAW_TO_INT16[c], alawmulaw.alaw.decodeSample(c), `A-law code ${c}`);
  }
});

g711('float tables are the 16-bit values divided by 32768', () => {
  for (let c = 0; c < 256; c++) {
    assert.is(MULAW_TO_FLOAT[c], MULAW_TO_INT16[c]! / 32768);
    assert.is(ALAW_TO_FLOAT[c], ALAW_TO_INT16[c]! / 32768);
  }
});

g711('encoding each decoded value gives back its code (mu-law -0 becomes +0)', () => {
  for (let c = 0; c < 256; c++) {
    assert.is(linearToMulaw(MULAW_TO_INT16[c]!), c === 0x7f ? 0xff : c, `mu-law code ${c}`);
    assert.is(linearToAlaw(ALAW_TO_INT16[c]!), c, `A-law code ${c}`);
  }
});

g711('encodes within half a quantization step and clips at full scale', () => {
  assert.equal(Array.from(encodeG711(Int16Array.of(0, 32767, -32768, 100), 'mulaw')), [0xff, 0x80, 0x00, linearToMulaw(100)]);
  assert.equal(Array.from(encodeG711(Int16Array.of(32767, -32768), 'alaw')), [0xaa, 0x2a]);
  // below the clip level every 16-bit value encodes within half a quantization step (≈ |s|/32)
  for (let s = -32124; s <= 32124; s += 3) {
    const err = Math.abs(MULAW_TO_INT16[linearToMulaw(s)]! - s);
    assert.ok(err <= Math.abs(s) / 32 + 8, `mu-law ${s} → error ${err}`);
    const errA = Math.abs(ALAW_TO_INT16[linearToAlaw(s)]! - s);
    assert.ok(errA <= Math.abs(s) / 32 + 16, `A-law ${s} → error ${errA}`);
  }
});

g711.run();
