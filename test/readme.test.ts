/** The README's first steps say what a new user needs to know (issue 21, new user findings). */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { signatureHeader } from '../src/callbacks/signature.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const readme = suite('readme');
const text = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

readme('the search example asks for JSON with Accept: application/json and says why', () => {
  const example = text.split('\n').find((l) => l.includes('curl') && l.includes('/search/'));
  assert.ok(example, 'a curl example of /search');
  assert.match(example!, /-H 'Accept: application\/json'/);
  assert.match(text, /Search answers are JSON, served as `text\/html` unless the request says `Accept: application\/json`/);
});

readme('a plain npm install is shown with ONNXRUNTIME_NODE_INSTALL=skip', () => {
  assert.match(text, /ONNXRUNTIME_NODE_INSTALL=skip npm install/);
});

readme('the quick start sends the callback to a local receiver, not to a host on the internet (issue 29)', () => {
  const send = text.split('\n').find((l) => l.includes('curl') && l.includes('callback='));
  assert.ok(send, 'a curl example with a callback');
  assert.match(send!, /callback=http:\/\/127\.0\.0\.1:9000\/hook /);
  assert.not.match(text, /example\.org\/hook/);
  assert.match(text, /company add acme --org sales --folder calls --show-secret/);
});

readme('the README\'s receiver (hook.mjs) accepts a callback signed with the secret and refuses a forged or stale one', async () => {
  const code = /`hook\.mjs`:\n\n```js\n([\s\S]*?)```/.exec(text)?.[1];
  assert.ok(code, 'the hook.mjs block');
  const dir = mkdtempSync(path.join(tmpdir(), 'voxdex-hook-'));
  const file = path.join(dir, 'hook.mjs');
  // The same program on a free port.
  writeFileSync(file, code!.replace(".listen(9000, '127.0.0.1')", ".listen(0, '127.0.0.1', function () { console.log('port', this.address().port); })"));
  const secret = 'a'.repeat(64);
  const proc = spawn(process.execPath, [file], { env: { PATH: process.env.PATH, SECRET: secret } });
  let out = '';
  proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
  try {
    for (let i = 0; i < 100 && !/port \d+/.test(out); i++) await new Promise((r) => setTimeout(r, 50));
    const port = /port (\d+)/.exec(out)![1];
    const body = Buffer.from('--b\r\nContent-Disposition: form-data; name="requestid"\r\n\r\nr1\r\n--b--\r\n');
    const post = (signature: string) =>
      fetch(`http://127.0.0.1:${port}/hook`, { method: 'POST', body, headers: { 'x-voxdex-signature': signature, 'x-voxdex-request-id': 'r1', 'content-type': 'multipart/form-data; boundary=b' } });
    assert.is((await post(signatureHeader(body, secret))).status, 200);
    assert.is((await post(signatureHeader(body, 'b'.repeat(64)))).status, 401);
    assert.is((await post(signatureHeader(body, secret, Math.floor(Date.now() / 1000) - 3600))).status, 401);
    assert.is((await post('t=1,v1=zz')).status, 401);
    assert.match(out, /verified r1 \d+ bytes\nrefused r1/);
  } finally {
    proc.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});

readme.run();
