/**
 * The one request-option table (src/jobs/option-table.ts, issue 32 item 6): every way in reads its
 * names from it (docs/openapi.json's descriptions are checked against it in e2e/api-fuzz.test.ts).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { OPTION_BOOLEANS, OPTION_HELP, OPTION_VALUED, optionFields } from '../src/cli/option-flags.js';
import { LIVE_PARAMS } from '../src/http/live-routes.js';
import { TRANSCRIBE_PARAMS } from '../src/http/upload-form.js';
import { OPTION_TABLE, REQUEST_OPTION_FIELDS } from '../src/jobs/option-table.js';
import { pickRequestOptions } from '../src/jobs/request-options.js';

const test = suite('request-option table');

test('the HTTP form, the live query, sidecars and the CLI take exactly the table\'s options', () => {
  const names = OPTION_TABLE.map((o) => o.name);
  assert.equal([...REQUEST_OPTION_FIELDS], names);
  for (const n of names) {
    assert.ok((TRANSCRIBE_PARAMS as readonly string[]).includes(n), `form: ${n}`);
    assert.ok((LIVE_PARAMS as readonly string[]).includes(n), `live query: ${n}`);
  }
  const all = Object.fromEntries(names.map((n) => [n, 'x']));
  assert.equal(Object.keys(pickRequestOptions({ ...all, token: 't', agent: 'a' })), names);
  // The CLI: every option but the alias `emotion` is a flag, with the table's help.
  assert.equal([...OPTION_BOOLEANS, ...OPTION_VALUED].sort(), names.filter((n) => n !== 'emotion').sort());
  assert.equal(OPTION_HELP, OPTION_TABLE.flatMap((o) => ('help' in o ? [[...o.help]] : [])));
  assert.equal(optionFields({ speakers: ['2', '3'], diarize: ['true'], model: ['x'] }), { diarize: 'true', speakers: '3' });
});

test('the upload form offers every option but the alias emotion, the kinds among them', () => {
  assert.equal(OPTION_TABLE.filter((o) => !('ui' in o)).map((o) => o.name), ['emotion']);
  assert.is(OPTION_TABLE.find((o) => o.name === 'redact')!.ui!.control, 'kinds');
});

test.run();
