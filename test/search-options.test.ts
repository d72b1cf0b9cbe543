import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { fromJsonBody, fromSearchParams, parseDeleteOptions, parseFields, parseIsoDate, parseSearchOptions } from '../src/search/search-options.js';

const test = suite('search-options');
const parse = (qs: string, accept?: string) => parseSearchOptions(fromSearchParams(new URLSearchParams(qs)), accept);

function fails(fn: () => unknown, code: string, message: string) {
  try {
    fn();
  } catch (err) {
    assert.is((err as { code?: string }).code, code);
    assert.is((err as Error).message, message);
    return;
  }
  assert.unreachable('should have thrown');
}

test('defaults: summary, json, size 100, datetime desc, every column, both zip files', () => {
  const o = parse('token=x');
  assert.is(o.token, 'x');
  assert.is(o.output, 'summary');
  assert.is(o.format, 'json');
  assert.equal(o.query, { meta: {}, offset: 0, size: 100, sort: 'datetime', sortdir: 'desc' });
  assert.equal(o.fields, ['tid', 'filename', 'datetime', 'duration', 'nchannels', 'model', 'confidence', 'score', 'metadata', 'speakers', 'hits', 'categories']);
  assert.equal(o.zipfiles, ['json', 'text']);
});

test('a GET query string and a POST body with the same options parse identically', () => {
  const get = parse('terms=%22a+b%22&channel=1&from=2024-01-01&to=2024-01-31&duration=10-20.5&model=m&filename=f.wav&requestid=r' +
    '&meta.agent=alice&offset=5&size=10&sort=score&sortdir=asc&fields=tid,-hits&zipfiles=text&csv');
  const post = parseSearchOptions(fromJsonBody({ terms: '"a b"', channel: 1, from: '2024-01-01', to: '2024-01-31', duration: '10-20.5', model: 'm',
    filename: 'f.wav', requestid: 'r', meta: { agent: 'alice' }, offset: 5, size: 10, sort: 'score', sortdir: 'asc', fields: 'tid,-hits',
    zipfiles: 'text', csv: true }));
  assert.equal(post, get);
  assert.equal(get.query, {
    meta: { agent: 'alice' }, offset: 5, size: 10, sort: 'score', sortdir: 'asc', terms: { type: 'phrase', words: ['a', 'b'] }, channel: 1,
    fromMs: Date.UTC(2024, 0, 1), toMs: Date.UTC(2024, 1, 1) - 1, durationMin: 10, durationMax: 20.5, model: 'm', filename: 'f.wav', requestid: 'r',
  });
  assert.is(get.format, 'csv');
});

test('format: flags, format=, and Accept: text/csv for summary only', () => {
  assert.is(parse('json').format, 'json');
  assert.is(parse('format=csv').format, 'csv');
  assert.is(parse('csv=false').format, 'json');
  assert.is(parse('', 'text/csv').format, 'csv');
  assert.is(parse('json', 'text/csv').format, 'json');
  assert.is(parse('output=details', 'text/csv').format, 'json');
  fails(() => parse('json&csv'), 'BAD_ARGUMENT', 'Conflicting formats: give one of json, csv (or format=json|csv).');
  fails(() => parse('output=zip&csv'), 'BAD_ARGUMENT', 'The csv format applies to output=summary only, not output=zip.');
});

test('fields: include list, exclusions, stable order, unknown names', () => {
  assert.equal(parseFields('hits,tid'), ['tid', 'hits']);
  assert.equal(parseFields('-hits,-metadata'), ['tid', 'filename', 'datetime', 'duration', 'nchannels', 'model', 'confidence', 'score', 'speakers', 'categories']);
  assert.equal(parseFields('tid,score,-score'), ['tid']);
  fails(() => parseFields('tid,nope'), 'BAD_ARGUMENT',
    'Expected column names among tid, filename, datetime, duration, nchannels, model, confidence, score, metadata, speakers, hits, categories (-name excludes) for fields but received "nope"');
});

test('dates: ISO 8601 with zones, date-only to is the end of the day, invalid dates fail', () => {
  assert.is(parseIsoDate('from', '2024-03-02T10:30:00+01:00'), Date.UTC(2024, 2, 2, 9, 30));
  assert.is(parseIsoDate('from', '2024-03-02T09:30:00.25Z'), Date.UTC(2024, 2, 2, 9, 30, 0, 250));
  assert.is(parseIsoDate('from', '2024-03-02 09:30'), Date.UTC(2024, 2, 2, 9, 30));
  assert.is(parseIsoDate('to', '2024-03-02', true), Date.UTC(2024, 2, 3) - 1);
  fails(() => parseIsoDate('from', '2024-02-30'), 'BAD_ARGUMENT',
    'Expected an ISO 8601 date or date-time (2024-05-01 or 2024-05-01T13:45:00Z) for from but received "2024-02-30"');
  fails(() => parse('from=2024-03-05&to=2024-03-01'), 'BAD_ARGUMENT', 'The range from=2024-03-05 to=2024-03-01 is empty: from must not be after to.');
});

test('paging limits: size 0 to 1000, offset not negative', () => {
  assert.is(parse('size=0').query.size, 0);
  assert.is(parse('size=1000').query.size, 1000);
  fails(() => parse('size=1001'), 'BAD_ARGUMENT', 'Expected an integer between 0 and 1000 for size but received "1001"');
  fails(() => parse('offset=-1'), 'BAD_ARGUMENT', 'Expected an integer between 0 and 10000000 for offset but received "-1"');
  fails(() => parse('size=1e3'), 'BAD_ARGUMENT', 'Expected an integer between 0 and 1000 for size but received "1e3"');
});

test('enumerations name what is accepted', () => {
  fails(() => parse('sort=loudness'), 'BAD_ARGUMENT', 'Expected one of datetime, duration, filename, score, confidence, overtalk, silence for sort but received "loudness"');
  fails(() => parse('output=xml'), 'BAD_ARGUMENT', 'Expected one of count, summary, details, zip for output but received "xml"');
  fails(() => parse('zipfiles=json,pdf'), 'BAD_ARGUMENT', 'Expected a comma list of json, text for zipfiles but received "json,pdf"');
  fails(() => parse('duration=abc'), 'BAD_ARGUMENT', 'Expected MIN-MAX seconds (e.g. 30-120, 30- or -120) for duration but received "abc"');
});

test('repeated options and unknown names are rejected', () => {
  fails(() => parse('terms=a&terms=b'), 'BAD_ARGUMENT', 'The option terms was given more than once; give it once.');
  fails(() => fromJsonBody({ meta: { a: '1' }, 'meta.a': '2' }), 'BAD_ARGUMENT', 'The option meta.a was given more than once; give it once.');
  fails(() => fromJsonBody([1]), 'BAD_ARGUMENT', 'Expected a JSON object of search options as the POST body.');
  fails(() => fromJsonBody({ size: [1] }), 'BAD_ARGUMENT', 'Expected a string, number or boolean for size but received "[1]"');
  // Found by the API fuzzer: an object or array as a json/csv flag was read as "set".
  fails(() => fromJsonBody({ csv: {} }), 'BAD_ARGUMENT', 'Expected a string, number or boolean for csv but received "{}"');
  fails(() => fromJsonBody({ json: [true] }), 'BAD_ARGUMENT', 'Expected a string, number or boolean for json but received "[true]"');
  // ... and an unknown name with a null value was not checked at all.
  fails(() => fromJsonBody({ '': null, channel: null }), 'UNKNOWN_PARAMETER', 'Unknown option ""; accepted: token, output, json, csv, format, terms, channel, speaker, role, from, to, duration, model, filename, requestid, meta.<field>, offset, size, sort, sortdir, fields, zipfiles, category, sentiment, overtalk, redacted.');
  assert.equal(fromJsonBody({ channel: null, 'meta.x': null }), {});
});

test('delete: a comma list of tids', () => {
  assert.equal(parseDeleteOptions({ token: 't', tid: 'a, b,,c' }), { token: 't', tids: ['a', 'b', 'c'] });
  fails(() => parseDeleteOptions({ token: 't', tid: 'a', terms: 'x' }), 'UNKNOWN_PARAMETER', 'Unknown option "terms"; accepted: token, tid.');
});


test('prototype names are option and field names like any other', () => {
  const q = parseSearchOptions(fromSearchParams(new URLSearchParams('meta.__proto__=x&meta.constructor=y')), undefined).query;
  assert.ok(Object.hasOwn(q.meta, '__proto__'));
  assert.equal(Object.entries(q.meta), [['__proto__', 'x'], ['constructor', 'y']]);
  const body = fromJsonBody(JSON.parse('{"meta":{"__proto__":"x"}}'));
  assert.equal(Object.entries(parseSearchOptions(body, undefined).query.meta), [['__proto__', 'x']]);
  assert.throws(() => parseSearchOptions(fromJsonBody(JSON.parse('{"__proto__":"x"}')), undefined), /Unknown option "__proto__"/);
  assert.throws(() => parseSearchOptions(fromSearchParams(new URLSearchParams('__proto__=x')), undefined), /Unknown option "__proto__"/);
});

test.run();
