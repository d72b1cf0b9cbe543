/**
 * docs/openapi.json against the real server. First the document itself: served at /openapi.json, in
 * step with the routes the server mounts and with the code's tables (error codes, outputs, the
 * compatibility parameters). Then schemathesis (PyPI, installed by scripts/test.sh into
 * .cache/pyvenv) fuzzes every operation of a started `voxdex serve` (child process, a company token,
 * one finished request): no 5xx, and every status, content type, header and JSON body as documented.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ERRORS } from '../../src/errors.js';
import { COMPAT_PARAMS, TRANSCRIBE_PARAMS } from '../../src/http/upload-form.js';
import { OPTION_TABLE } from '../../src/jobs/option-table.js';
import { OUTPUT_FORMATS } from '../../src/render/output.js';
import { AGGREGATE_OPTION_NAMES } from '../../src/search/aggregate-options.js';
import { SEARCH_OPTION_NAMES } from '../../src/search/search-options.js';
import { tenancyDbPath } from '../../src/tenancy/tenancy.js';
import { SqliteTenancy } from '../../src/tenancy/sqlite-tenancy.js';
import { makeTempDir, makeWav, removeDir } from '../fixtures/make-audio.js';
import { ROOT, startChild, startInProcess, upload, waitHealthy, waitResult, type Child } from './harness.js';

const fuzz = suite('e2e: OpenAPI document and API fuzzer');
const DOC = JSON.parse(readFileSync(path.join(ROOT, 'docs/openapi.json'), 'utf8'));
const SCHEMATHESIS = path.join(process.env.VOXDEX_PYVENV ?? path.join(ROOT, '.cache/pyvenv'), 'bin/schemathesis');
let dir = '';
let child: Child | undefined;

fuzz.before(() => {
  dir = makeTempDir('voxdex-fuzz-');
});
fuzz.after(async () => {
  if (child && child.proc.exitCode === null && child.proc.signalCode === null) {
    child.proc.kill('SIGKILL');
    await child.exited;
  }
  removeDir(dir);
});

/** `/transcribe/:org/:folder` → `/transcribe/{}/{}` (names do not matter for matching). */
const shape = (p: string) => p.replace(/:[^/]+|\{[^}]+\}/g, '{}');

fuzz('the document is served at /openapi.json and matches the mounted routes and the code tables', async () => {
  const svc = await startInProcess(path.join(dir, 'doc'));
  try {
    const r = await fetch(`${svc.url}/openapi.json`);
    assert.is(r.status, 200);
    assert.is(r.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(await r.json(), DOC);
    assert.is(DOC.openapi, '3.1.0');
    // Every documented path and method is routed, and every route is documented.
    const documented = new Set<string>();
    for (const [p, item] of Object.entries(DOC.paths as Record<string, Record<string, unknown>>)) {
      for (const m of Object.keys(item)) if (m !== 'parameters') documented.add(`${m.toUpperCase()} ${shape(p)}`);
    }
    const routed = new Set<string>();
    for (const r of svc.routes) {
      for (const m of r.methods) {
        if (r.pattern === '/search/*') for (const p of ['/search/{}/{}', '/search/{}/{}/{}']) routed.add(`${m} ${p}`);
        else if (r.pattern === '/analytics/*') for (const p of ['/analytics/{}', '/analytics/{}/{}', '/analytics/{}/{}/{}']) routed.add(`${m} ${p}`);
        else routed.add(`${m} ${shape(r.pattern)}`);
      }
    }
    assert.equal([...routed].sort(), [...documented].sort());
  } finally {
    await svc.close();
  }
  const schemas = DOC.components.schemas;
  assert.equal(schemas.Error.properties.error.properties.code.enum, Object.keys(ERRORS));
  assert.equal(schemas.OutputFormat.enum, [...OUTPUT_FORMATS]);
  assert.equal(Object.keys(schemas.TranscribeForm.properties), [...TRANSCRIBE_PARAMS, ...COMPAT_PARAMS]);
  // Each request option is described as the one option table says (src/jobs/option-table.ts).
  for (const o of OPTION_TABLE) assert.is(schemas.TranscribeForm.properties[o.name].description, o.openapi, o.name);
  // Every option the search and the analytics accept is documented, so the fuzzer sends it too
  // (`role`, `redacted` were accepted but missing).
  const filters = (names: readonly string[]) => names.filter((n) => n !== 'token' && n !== 'meta' && !n.startsWith('meta.')).sort();
  assert.equal(queryParameters('/search/{company}/{org}', 'get'), filters(SEARCH_OPTION_NAMES));
  assert.equal(queryParameters('/search/{company}/{org}/{folder}', 'get'), filters(SEARCH_OPTION_NAMES));
  assert.equal(filters(Object.keys(schemas.SearchBody.properties)), filters(SEARCH_OPTION_NAMES));
  for (const p of ['/analytics/{company}', '/analytics/{company}/{org}', '/analytics/{company}/{org}/{folder}']) {
    assert.equal(queryParameters(p, 'get'), filters(AGGREGATE_OPTION_NAMES), p);
  }
});

/** The names of an operation's query parameters (its own and those of its path), sorted. */
function queryParameters(p: string, method: string): string[] {
  type Param = { $ref?: string; name?: string; in?: string };
  const item = DOC.paths[p] as { parameters?: Param[] } & Record<string, { parameters?: Param[] }>;
  const params: Param[] = [...(item.parameters ?? []), ...(item[method]!.parameters ?? [])];
  const resolved = params.map((x) => (x.$ref ? DOC.components.parameters[x.$ref.split('/').pop()!] : x) as { name: string; in: string });
  return resolved.filter((x) => x.in === 'query').map((x) => x.name).sort();
}

fuzz('schemathesis finds no 5xx and no response that differs from the document', async () => {
  assert.ok(existsSync(SCHEMATHESIS), `${SCHEMATHESIS} is missing: run the suite with \`bash scripts/test.sh\` (it installs schemathesis into .cache/pyvenv)`);
  const dataDir = path.join(dir, 'data');
  const t = new SqliteTenancy(tenancyDbPath(dataDir));
  const { token } = t.addCompany('acme', { org: 'sales', folder: 'calls' });
  t.close();
  child = await startChild(dataDir, { VOXDEX_RATE_LIMIT_PER_MIN: '0', VOXDEX_MAX_UPLOAD_MIB: '1', VOXDEX_ASR_THREADS: '1' });
  await waitHealthy(child.url);
  const wav = await makeWav(dir, { name: 'hello.wav', rate: 8000, text: 'hello' });
  const up = await upload(child.url, { file: wav, fields: { token } });
  assert.is(up.status, 200);
  const link = await waitResult(child.url, token, up.body.requestid);
  assert.is(link.status, 200);
  const signed = new URL(link.body as string).searchParams;
  const audio = await fetch(`${child.url}/transcribe/${up.body.requestid}/audio?channel=all`, { headers: { Authorization: `Bearer ${token}` } });
  assert.is(audio.status, 200);
  const audioSigned = new URL((await audio.json()) as string).searchParams;

  const args = [
    '--config-file', path.join(ROOT, 'test/e2e/api-fuzz.toml'),
    'run', `${child.url}/openapi.json`,
    // No stateful phase: the one operation that creates a resource needs real audio (random bytes are
    // 415), and links inferred from the JSON-string result URL mutate the signed link's parameters.
    '--phases', 'examples,coverage,fuzzing',
    '--checks', 'all',
    // Valid-by-schema requests cannot all succeed: the schema cannot say which tokens, requests or audio exist.
    '--exclude-checks', 'positive_data_acceptance',
    '--max-examples', process.env.VOXDEX_FUZZ_EXAMPLES ?? '40',
    '--workers', '1',
    '--seed', process.env.VOXDEX_FUZZ_SEED ?? '20261122',
    '--request-timeout', '30',
    '--no-color',
  ];
  const t0 = Date.now();
  const out = await new Promise<{ code: number | null; text: string }>((resolve) => {
    const proc = spawn(SCHEMATHESIS, args, {
      cwd: dir,
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        VOXDEX_FUZZ_TOKEN: token,
        VOXDEX_FUZZ_REQUESTID: up.body.requestid,
        VOXDEX_FUZZ_EXPIRES: signed.get('expires')!,
        VOXDEX_FUZZ_SIG: signed.get('sig')!,
        VOXDEX_FUZZ_AUDIO_EXPIRES: audioSigned.get('expires')!,
        VOXDEX_FUZZ_AUDIO_SIG: audioSigned.get('sig')!,
      },
    });
    let text = '';
    proc.stdout.on('data', (c: Buffer) => (text += c.toString()));
    proc.stderr.on('data', (c: Buffer) => (text += c.toString()));
    const timer = setTimeout(() => proc.kill('SIGKILL'), 300_000);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, text });
    });
  });
  const summary = out.text.split('\n').filter((l) => /\d+ generated|^Seed/.test(l)).map((l) => l.trim()).join('; ');
  console.log(`      schemathesis: ${Math.round((Date.now() - t0) / 1000)} s; ${summary}`);
  // The report, each line cut (reproducing URLs can be kilobytes long).
  const report = out.text.slice(out.text.indexOf('FAILURES') >= 0 ? out.text.indexOf('FAILURES') - 40 : -6000).split('\n').map((l) => (l.length > 300 ? `${l.slice(0, 300)}…` : l));
  assert.is(out.code, 0, report.join('\n').slice(0, 12_000));
  assert.match(out.text, /API Operations:\s+Selected: (\d+)\/\1\s+Tested: \1/);
  child.proc.kill('SIGTERM');
  assert.is(await child.exited, 0);
});

fuzz.run();
