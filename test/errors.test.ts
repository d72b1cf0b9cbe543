import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { ERRORS, toVoxdexError, withoutFolders } from '../src/errors.js';

const errors = suite('errors');

errors('an unexpected error reaches clients without the server folders in its message (issue 21.4)', () => {
  let thrown: unknown;
  try {
    readFileSync('/srv/voxdex/data/incoming/upload_5f3a');
  } catch (err) {
    thrown = err;
  }
  const e = toVoxdexError(thrown);
  assert.is(e.code, 'INTERNAL');
  assert.is(e.message, "internal error: ENOENT: no such file or directory, open 'upload_5f3a'");
  assert.is((e.cause as Error).message, "ENOENT: no such file or directory, open '/srv/voxdex/data/incoming/upload_5f3a'"); // the log keeps it
  assert.is(withoutFolders("rename '/a/b/c.wav' -> '/d/e/f.wav'"), "rename 'c.wav' -> 'f.wav'");
  assert.is(withoutFolders('see http://example.org/a/b and /'), 'see http://example.org/a/b and /');
});

errors('docs/service.md, "Errors", lists every code of the table under its HTTP status', () => {
  const doc = readFileSync(new URL('../docs/service.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('## Errors'), doc.indexOf('\n## ', doc.indexOf('## Errors') + 1));
  const listed = new Map<string, number[]>();
  for (const row of section.split('\n').filter((l) => /^\| \d{3} \|/.test(l))) {
    const status = Number(row.slice(2, 5));
    for (const [, code] of row.split('|')[3]!.matchAll(/`([A-Z_]+)`/g)) listed.set(code!, [...(listed.get(code!) ?? []), status]);
  }
  for (const [code, info] of Object.entries(ERRORS)) assert.ok(listed.get(code)?.includes(info.status), `${code} (${info.status}) is not listed under its status`);
  assert.equal([...listed.keys()].filter((c) => !(c in ERRORS)), [], 'codes listed that the table does not have');
});

errors.run();
