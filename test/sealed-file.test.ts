/**
 * src/audio/sealed-file.ts: audio at rest sealed with the installation's key. Round trips at every
 * chunk boundary, random access equal to the plaintext's bytes, nothing of the plaintext in the
 * sealed bytes, and a file that was cut, spliced, flipped or sealed under another key refused.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bufferSource, readAll, readAtSync } from '../src/audio/byte-source.js';
import { AudioSeal, plainSize, SEAL_CHUNK_BYTES, SEAL_HEADER_BYTES } from '../src/audio/sealed-file.js';
import { rejects } from './fixtures/assert-error.js';
import { ASTERISK_PROMPT, makeTempDir, removeDir } from './fixtures/make-audio.js';

const sealed = suite('sealed-file: audio at rest');
let dir = '';
sealed.before(() => {
  dir = makeTempDir('voxdex-sealed-');
});
sealed.after(() => removeDir(dir));

const seal = AudioSeal.ephemeral();
let n = 0;
const file = () => path.join(dir, `f${n++}`);

async function sealedFile(plain: Buffer, s = seal): Promise<string> {
  const f = file();
  await s.sealFile(bufferSource(plain), f);
  return f;
}

sealed('round-trips every size around the chunk boundaries, through the writer and in memory', async () => {
  for (const size of [0, 1, SEAL_CHUNK_BYTES - 1, SEAL_CHUNK_BYTES, SEAL_CHUNK_BYTES + 1, 3 * SEAL_CHUNK_BYTES, 3 * SEAL_CHUNK_BYTES + 17]) {
    const plain = randomBytes(size);
    const f = await sealedFile(plain);
    assert.is(plainSize(statSync(f).size), size, `size ${size}`);
    const src = seal.open(f);
    assert.is(src.size, size);
    assert.ok((await readAll(src)).equals(plain), `bytes of ${size}`);
    await src.close();
    const mem = seal.sealBuffer(plain);
    assert.is(mem.length, statSync(f).size, `sealBuffer writes the same layout (${size})`);
    assert.ok((await readAll(seal.openBuffer(mem, 'memory'))).equals(plain));
  }
});

sealed('reads any range by decrypting only what it touches; the stream equals the plaintext', async () => {
  const plain = readFileSync(ASTERISK_PROMPT);
  const src = seal.open(await sealedFile(plain));
  for (const [at, len] of [[0, 44], [SEAL_CHUNK_BYTES - 5, 10], [plain.length - 3, 100], [plain.length, 5], [1000, 2 * SEAL_CHUNK_BYTES]] as const) {
    assert.ok(readAtSync(src, at, len).equals(plain.subarray(at, at + len)), `range ${at}+${len}`);
  }
  const chunks: Buffer[] = [];
  for await (const c of src.stream(10, plain.length - 10)) chunks.push(c as Buffer);
  assert.ok(Buffer.concat(chunks).equals(plain.subarray(10, plain.length - 10)));
  await src.close();
});

sealed('the sealed bytes hold nothing of the recording: no RIFF header, no 16-byte run of its samples', async () => {
  const plain = readFileSync(ASTERISK_PROMPT);
  const bytes = readFileSync(await sealedFile(plain));
  assert.is(bytes.indexOf('RIFF'), -1);
  for (let at = 44; at + 16 <= plain.length; at += 997) assert.is(bytes.indexOf(plain.subarray(at, at + 16)), -1, `samples at ${at}`);
  assert.not.ok(seal.sealBuffer(plain).subarray(SEAL_HEADER_BYTES).equals(seal.sealBuffer(plain).subarray(SEAL_HEADER_BYTES)), 'a fresh salt each time');
});

sealed('refuses a file sealed under another key, cut short, with a chunk dropped or a bit flipped', async () => {
  const plain = randomBytes(3 * SEAL_CHUNK_BYTES + 100);
  const other = await sealedFile(plain, AudioSeal.ephemeral());
  await rejects(() => readAll(seal.open(other)), 'SECRET_KEY_INVALID', /cannot be opened: a chunk does not open with this installation's key/);

  const cut = await sealedFile(plain);
  truncateSync(cut, SEAL_HEADER_BYTES + 2 * (SEAL_CHUNK_BYTES + 16)); // whole chunks: only the last-chunk flag tells
  await rejects(() => readAll(seal.open(cut)), 'SECRET_KEY_INVALID', /a chunk does not open/);

  const dropped = await sealedFile(plain);
  const b = readFileSync(dropped);
  writeFileSync(dropped, Buffer.concat([b.subarray(0, SEAL_HEADER_BYTES), b.subarray(SEAL_HEADER_BYTES + SEAL_CHUNK_BYTES + 16)]));
  await rejects(() => readAll(seal.open(dropped)), 'SECRET_KEY_INVALID', /a chunk does not open/);

  const flipped = await sealedFile(plain);
  const f = readFileSync(flipped);
  f[SEAL_HEADER_BYTES + 5000]! ^= 1;
  writeFileSync(flipped, f);
  await rejects(() => readAll(seal.open(flipped)), 'SECRET_KEY_INVALID', /a chunk does not open/);

  const plainWav = file();
  writeFileSync(plainWav, readFileSync(ASTERISK_PROMPT));
  assert.throws(() => seal.open(plainWav), /it is not a sealed file/);
});

sealed('a writer destroyed before it finished leaves no file', async () => {
  const f = file();
  const w = seal.writer(f);
  await new Promise<void>((resolve) => w.write(randomBytes(200_000), () => resolve()));
  await new Promise<void>((resolve) => (w.once('close', () => resolve()), w.destroy()));
  assert.throws(() => statSync(f), /ENOENT/);
});

sealed.run();
