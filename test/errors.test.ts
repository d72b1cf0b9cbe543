import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { toVoxdexError, withoutFolders } from '../src/errors.js';

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

errors.run();
