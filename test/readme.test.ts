/** The README's first steps say what a new user needs to know (issue 21, new user findings). */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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

readme.run();
