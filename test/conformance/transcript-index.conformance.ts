/**
 * The one conformance suite every TranscriptIndex backend must pass (SQLite, Elasticsearch).
 * Usage, in a test file:  runTranscriptIndexConformance('sqlite', async () => new SqliteTranscriptIndex(...));
 * The factory must return a NEW, EMPTY index on each call (the suite calls init() and close()).
 * Expected results are worked out by hand from test/conformance/transcript-corpus.ts.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import yauzl from 'yauzl';
import { renderSummaryCsv, renderZip } from '../../src/search/render.js';
import { parseSearchOptions, type RawOptions } from '../../src/search/search-options.js';
import type { AggregateRequest, Aggregates, AggregateScope, IndexedTranscript, SearchQuery, SearchScope, TranscriptIndex } from '../../src/search/transcript-index.js';
import { emptyFigures, tidyFigures } from '../../src/search/aggregate.js';
import { channelWords, evaluate } from '../../src/search/match.js';
import { wordStart, CORPUS, makeTranscript, SPECS } from './transcript-corpus.js';

const F1: SearchScope = { company: 'acme', org: 'sales', folder: 'f1' };
const SALES: SearchScope = { company: 'acme', org: 'sales' };

const query = (raw: RawOptions) => parseSearchOptions(raw).query;

async function readZip(buf: Buffer): Promise<Map<string, string>> {
  const zip = await new Promise<yauzl.ZipFile>((res, rej) => yauzl.fromBuffer(buf, { lazyEntries: true }, (e, z) => (e ? rej(e) : res(z!))));
  const out = new Map<string, string>();
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      zip.openReadStream(entry, (err, stream) => {
        if (err) return reject(err);
        const chunks: Buffer[] = [];
        stream!.on('data', (c: Buffer) => chunks.push(c));
        stream!.on('end', () => {
          out.set(entry.fileName, Buffer.concat(chunks).toString('utf8'));
          zip.readEntry();
        });
      });
    });
    zip.on('end', resolve);
    zip.on('error', reject);
    zip.readEntry();
  });
  return out;
}

async function streamToBuffer(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Registers and runs the suites (alias: transcriptIndexConformance). */
export function runTranscriptIndexConformance(name: string, factory: () => Promise<TranscriptIndex>): void {
  const read = suite<{ index: TranscriptIndex }>(`${name}: TranscriptIndex conformance (queries)`);
  read.before(async (ctx) => {
    ctx.index = await factory();
    await ctx.index.init();
    await ctx.index.index(CORPUS);
  });
  read.after(async (ctx) => ctx.index.close());

  const tids = async (index: TranscriptIndex, raw: RawOptions, scope: SearchScope = F1) => {
    const q = query(raw);
    const result = await index.search(scope, q);
    const n = await index.count(scope, q);
    assert.is(result.total, n, `search total equals count for ${JSON.stringify(raw)}`);
    return result.rows.map((r) => r.tid);
  };

  const cases: Array<[string, RawOptions, string[], SearchScope?]> = [
    ['a phrase matches within one channel, also across that channel\'s utterances', { terms: '"cancel my subscription"' }, ['t04', 't01']],
    ['a phrase never matches across channels', { terms: '"say cancel my subscription"' }, []],
    ['words side by side are ANDed across channels', { terms: 'cancel subscription' }, ['t05', 't04', 't01']],
    ['& is an explicit AND', { terms: 'cancel & subscription' }, ['t05', 't04', 't01']],
    ['| is OR', { terms: 'refund | transfer' }, ['t10', 't03', 't02', 't01']],
    ['-word excludes transcripts containing it (or a form of it)', { terms: 'cancel -subscription' }, ['t10', 't02']],
    ['a query of only exclusions matches the rest of the scope', { terms: '-refund' }, ['t09', 't05', 't04', 't03']],
    ['-"phrase" excludes the phrase only', { terms: 'cancel -"cancel my subscription"' }, ['t10', 't05', 't02']],
    ['parentheses group', { terms: '(refund | hold) & thank' }, ['t10', 't03', 't01']],
    ['OR with an excluded alternative', { terms: 'transfer | -cancel*' }, ['t09', 't03']],
    ['matching is case-insensitive', { terms: '"THANK you"' }, ['t10', 't03', 't01']],
    ['a word finds its forms: the plural finds the singular', { terms: 'subscriptions' }, ['t05', 't04', 't01']],
    ['a word finds its forms: cancels finds cancel and canceled', { terms: 'cancels' }, ['t10', 't05', 't04', 't02', 't01']],
    ['a word finds its forms: holds finds hold and holding', { terms: 'holds' }, ['t03']],
    ['a quoted word matches exactly', { terms: '"canceled"' }, ['t10']],
    ['a quoted word matches exactly, not its forms', { terms: '"cancel"' }, ['t05', 't04', 't02', 't01']],
    ['a quoted phrase matches its words exactly', { terms: '"cancel the orders"' }, []],
    ['a quoted phrase', { terms: '"cancel the order"' }, ['t02']],
    ['word forms with a channel', { terms: 'refunded', channel: '1' }, ['t02', 't01']],
    ['word forms and exact words combine', { terms: 'canceling "order"' }, ['t10', 't02']],
    ['an excluded word excludes its forms', { terms: 'order -canceling' }, []],
    ['a trailing * is a prefix', { terms: 'cancel*' }, ['t10', 't05', 't04', 't02', 't01']],
    ['? stands for exactly one character', { terms: 'col?r' }, ['t09']],
    ['an inner * stands for any run of characters', { terms: 'c?ll*' }, ['t09', 't03', 't01']],
    ['wildcards inside a phrase', { terms: '"c*l my sub*"' }, ['t04', 't01']],
    ['a wildcard matching no word matches nothing', { terms: 'zz?z' }, []],
    ['a wildcard matching nothing inside OR is ignored', { terms: 'transfer | zz?z' }, ['t03']],
    ['proximity counts the words between, in any order', { terms: '"refund order"~3' }, ['t10', 't02']],
    ['proximity below the distance does not match', { terms: '"order refund"~2' }, []],
    ['proximity stays within one channel', { terms: '"cancel subscription"~1' }, ['t04', 't01']],
    ['proximity 0 needs adjacent words', { terms: '"cancel subscription"~0' }, []],
    ['channel restricts where terms match', { terms: 'refund', channel: '0' }, ['t10']],
    ['channel 1', { terms: 'refund', channel: '1' }, ['t02', 't01']],
    ['channel without terms keeps transcripts that have the channel', { channel: '1' }, ['t10', 't05', 't04', 't02', 't01']],
    ['from/to are inclusive; a date alone as to means that whole day', { from: '2024-03-02', to: '2024-03-04' }, ['t04', 't03', 't02']],
    ['from and to at the same instant', { from: '2024-03-02T09:30:00Z', to: '2024-03-02T09:30:00Z' }, ['t02']],
    ['from/to with an offset zone', { from: '2024-03-02T10:30:00+01:00', to: '2024-03-02T10:30:00+0100' }, ['t02']],
    ['duration MIN-MAX is inclusive', { duration: '45-61' }, ['t05', 't04']],
    ['duration MIN-', { duration: '61.5-' }, ['t10', 't03', 't01']],
    ['duration -MAX', { duration: '-15' }, ['t09']],
    ['model filter', { model: 'en-us-16k' }, ['t09', 't03']],
    ['filename filter', { filename: 'call-02.wav' }, ['t02']],
    ['requestid filter', { requestid: 'req-4' }, ['t04']],
    ['meta.<field> filter', { 'meta.agent': 'alice' }, ['t10', 't03', 't01']],
    ['meta filter on a boolean compares its text', { 'meta.vip': 'true' }, ['t03']],
    ['meta filter is exact', { 'meta.agent': 'Alice' }, []],
    ['terms and filters combine', { terms: 'thank', 'meta.agent': 'alice', duration: '100-' }, ['t03']],
    ['org scope covers all folders', { terms: 'refund' }, ['t06', 't10', 't02', 't01'], SALES],
    ['folder scope', { terms: 'refund' }, ['t06'], { ...SALES, folder: 'f2' }],
    ['another org of the same company is separate', { terms: 'cancel' }, ['t08'], { company: 'acme', org: 'support' }],
    ['another company with the same org name is separate', { terms: 'cancel' }, ['t07'], { company: 'other', org: 'sales' }],
    ['an unknown folder is empty', {}, [], { ...SALES, folder: 'nope' }],
    ['default sort: datetime desc', {}, ['t10', 't09', 't05', 't04', 't03', 't02', 't01']],
    ['sort datetime asc', { sortdir: 'asc' }, ['t01', 't02', 't03', 't04', 't05', 't09', 't10']],
    ['sort duration asc, ties by tid', { sort: 'duration', sortdir: 'asc' }, ['t09', 't02', 't04', 't05', 't01', 't10', 't03']],
    ['sort duration desc, ties by tid', { sort: 'duration' }, ['t03', 't10', 't01', 't04', 't05', 't02', 't09']],
    ['sort filename asc', { sort: 'filename', sortdir: 'asc' }, ['t01', 't02', 't03', 't04', 't05', 't09', 't10']],
    ['sort filename desc', { sort: 'filename', sortdir: 'desc' }, ['t10', 't09', 't05', 't04', 't03', 't02', 't01']],
    ['sort confidence desc: missing lowest, ties by tid', { sort: 'confidence' }, ['t09', 't01', 't10', 't02', 't04', 't05', 't03']],
    ['sort confidence asc', { sort: 'confidence', sortdir: 'asc' }, ['t03', 't04', 't05', 't02', 't10', 't01', 't09']],
    ['sort score desc (number of hits), ties by tid', { terms: 'subscription | cancel', sort: 'score' }, ['t04', 't01', 't05', 't02', 't10']],
    ['sort score asc', { terms: 'subscription | cancel', sort: 'score', sortdir: 'asc' }, ['t02', 't10', 't01', 't05', 't04']],
    ['sort score without terms: all 0, by tid', { sort: 'score' }, ['t01', 't02', 't03', 't04', 't05', 't09', 't10']],
    ['paging: offset and size', { offset: '2', size: '2' }, ['t05', 't04']],
    ['paging: the last partial page', { offset: '5', size: '5' }, ['t02', 't01']],
    ['paging: offset at the end', { offset: '7' }, []],
    ['paging: offset beyond the end', { offset: '1000' }, []],
    ['paging: size 0 gives no rows', { size: '0' }, []],
    ['paging: size 1000', { size: '1000' }, ['t10', 't09', 't05', 't04', 't03', 't02', 't01']],
    ['paging applies after score sorting', { terms: 'subscription | cancel', sort: 'score', offset: '1', size: '2' }, ['t01', 't05']],
  ];
  for (const [title, raw, expected, scope] of cases) {
    read(title, async ({ index }) => {
      assert.equal(await tids(index, raw, scope), expected);
    });
  }

  read('every terms case agrees with the reference matcher (match.ts) over the corpus', async ({ index }) => {
    for (const [, raw, , scope] of cases) {
      const q = query(raw);
      if (!q.terms || Object.keys(raw).some((k) => k !== 'terms' && k !== 'channel')) continue;
      const sc = scope ?? F1;
      const expected = CORPUS.filter(
        (t) => t.company === sc.company && t.org === sc.org && (sc.folder === undefined || t.folder === sc.folder) && evaluate(q.terms!, channelWords(t.document), q.channel),
      ).length;
      assert.is(await index.count(sc, q), expected, JSON.stringify(raw));
    }
  });

  read('count ignores offset and size', async ({ index }) => {
    assert.is(await index.count(F1, query({ terms: 'cancel*', offset: '3', size: '1' })), 5);
    assert.is(await index.count(SALES, query({})), 8);
  });

  read('summary rows carry the transcript fields, metadata, score and hits', async ({ index }) => {
    const { total, rows } = await index.search(F1, query({ terms: '"cancel my subscription"' }));
    assert.is(total, 2);
    assert.equal(rows[0], {
      tid: 't04', filename: 'call-04.wav', datetime: '2024-03-04T08:00:00Z', duration: 45, nchannels: 2, model: 'en-us-8k',
      confidence: 0.75, score: 1, metadata: { agent: 'carol' },
      hits: [{ channel: 1, start: 1.75, end: 11.15, text: 'i want to cancel my subscription now' }],
    });
    assert.equal(rows[1]!.hits, [{ channel: 1, start: 2.25, end: 3.65, text: 'i want to cancel my subscription the refund never' }]);
    assert.is(rows[1]!.confidence, 0.91);
  });

  read('a transcript without confidence has no confidence field', async ({ index }) => {
    const { rows } = await index.search(F1, query({ requestid: 'req-3' }));
    assert.is('confidence' in rows[0]!, false);
    assert.equal(rows[0]!.metadata, { agent: 'alice', vip: true });
    assert.equal(rows[0]!.hits, []);
    assert.is(rows[0]!.score, 0);
  });

  read('hits: every occurrence, by time, with the original word case', async ({ index }) => {
    const { rows } = await index.search(F1, query({ terms: 'col*r' }));
    assert.equal(rows[0]!.hits, [
      { channel: 0, start: 0.5, end: 0.9, text: 'the colour and the color' },
      { channel: 0, start: 2, end: 2.4, text: 'colour and the color of the collar' },
      { channel: 0, start: 3.5, end: 3.9, text: 'color of the collar' },
    ]);
    assert.is(rows[0]!.score, 3);
    const thank = await index.search(F1, query({ terms: '"thank you"', requestid: 'req-10' }));
    assert.equal(thank.rows[0]!.hits, [{ channel: 1, start: 0.25, end: 1.15, text: 'Thank You' }]);
  });

  read('hits: excluded words give none; channel restricts hits', async ({ index }) => {
    const { rows } = await index.search(F1, query({ terms: 'subscription -refund' }));
    assert.equal(rows.map((r) => [r.tid, r.hits.map((h) => h.channel)]), [['t05', [1]], ['t04', [0, 1]]]);
    const ch0 = await index.search(F1, query({ terms: 'subscription', channel: '0' }));
    assert.equal(ch0.rows.map((r) => [r.tid, r.hits.map((h) => h.start)]), [['t04', [1.5]]]);
  });

  read('hits: a word typed without quotes hits its forms, a quoted one only itself', async ({ index }) => {
    const forms = await index.search(F1, query({ terms: 'canceling', requestid: 'req-10' }));
    assert.equal(forms.rows[0]!.hits, [{ channel: 0, start: 2, end: 2.4, text: 'refund for the canceled order was processed' }]);
    const both = await index.search(F1, query({ terms: 'holds', requestid: 'req-3' }));
    assert.equal(both.rows[0]!.hits.map((h) => h.start), [0.5, 11.5]);
    const exact = await index.search(F1, query({ terms: '"hold"', requestid: 'req-3' }));
    assert.equal(exact.rows[0]!.hits.map((h) => h.start), [0.5]);
  });

  read('hits: a proximity group is one hit from its first to its last word', async ({ index }) => {
    const { rows } = await index.search(F1, query({ terms: '"order refund"~3', requestid: 'req-10' }));
    assert.equal(rows[0]!.hits, [{ channel: 0, start: 0.5, end: 2.9, text: 'your refund for the canceled order was processed' }]);
  });

  read('details: the stored documents with their tid, in search order', async ({ index }) => {
    const docs = await index.details(F1, query({ terms: '"cancel my subscription"' }));
    assert.equal(docs.map((d) => d.tid), ['t04', 't01']);
    assert.equal(docs[1], { tid: 't01', ...CORPUS[0]!.document });
    assert.equal(Object.keys(docs[0]!)[0], 'tid');
    assert.equal(await index.details(F1, query({ offset: '6', size: '5' })).then((d) => d.map((x) => x.tid)), ['t01']);
  });

  read('summary CSV quotes commas, quotes and newlines in metadata (RFC 4180)', async ({ index }) => {
    const opts = parseSearchOptions({ 'meta.agent': 'bob', fields: 'tid,filename,metadata', csv: '' });
    const { rows } = await index.search(SALES, opts.query);
    const csv = renderSummaryCsv(rows, opts.fields, undefined).body;
    assert.is(csv, 'tid,filename,meta.agent,meta.note\r\nt06,call-06.wav,bob,\r\nt02,call-02.wav,bob,"said ""hi"", then left,\nangry"\r\n');
  });

  read('zip: one .json and one .txt per match, read back', async ({ index }) => {
    const docs = await index.details(F1, query({ terms: '"cancel my subscription"' }));
    const files = await readZip(await streamToBuffer(renderZip(docs, ['json', 'text'])));
    assert.equal([...files.keys()], ['call-04.json', 'call-04.txt', 'call-01.json', 'call-01.txt']);
    assert.equal(JSON.parse(files.get('call-01.json')!), { tid: 't01', ...CORPUS[0]!.document });
    assert.is(files.get('call-04.txt'), '[0] we value your subscription\n[1] i want to cancel\n[1] my subscription now\n');
    const textOnly = await readZip(await streamToBuffer(renderZip(docs, ['text'])));
    assert.equal([...textOnly.keys()], ['call-04.txt', 'call-01.txt']);
  });

  read.run();

  const write = suite(`${name}: TranscriptIndex conformance (changes)`);
  const fresh = async () => {
    const index = await factory();
    await index.init();
    await index.index(CORPUS);
    return index;
  };

  write('re-indexing a tid replaces it; indexing the same document twice changes nothing', async () => {
    const index = await fresh();
    try {
      await index.index([CORPUS[1]!, CORPUS[1]!]);
      assert.is(await index.count(SALES, query({})), 8);
      const t02 = SPECS.find((s) => s.tid === 't02')!;
      assert.equal(await tids(index, { terms: 'rel?vant | r*nt' }), []);
      await index.index([makeTranscript({ ...t02, channels: [['nothing relevant here']], metadata: { agent: 'bo' } })]);
      assert.equal(await tids(index, { terms: 'rel?vant | r*nt' }), ['t02']);
      assert.is(await index.count(SALES, query({})), 8);
      assert.equal(await tids(index, { terms: 'refund' }), ['t10', 't01']);
      assert.equal(await tids(index, { terms: 'relevant' }), ['t02']);
      assert.equal(await tids(index, { 'meta.agent': 'bob' }, SALES), ['t06']);
      assert.equal(await tids(index, { 'meta.agent': 'bo' }), ['t02']);
    } finally {
      await index.close();
    }
  });

  write('re-indexing can move a transcript to another folder', async () => {
    const index = await fresh();
    try {
      const t09 = SPECS.find((s) => s.tid === 't09')!;
      await index.index([makeTranscript({ ...t09, scope: ['acme', 'sales', 'f2'] })]);
      assert.equal(await tids(index, { terms: 'colour' }), []);
      assert.equal(await tids(index, { terms: 'colour' }, { ...SALES, folder: 'f2' }), ['t09']);
    } finally {
      await index.close();
    }
  });

  write('delete removes only tids inside the scope and returns how many', async () => {
    const index = await fresh();
    try {
      assert.is(await index.delete(F1, ['t01', 't06', 't07', 'nope']), 1);
      assert.equal(await tids(index, { terms: 'refund' }, SALES), ['t06', 't10', 't02']);
      assert.equal(await tids(index, { terms: 'cancel' }, { company: 'other', org: 'sales' }), ['t07']);
      assert.is(await index.delete(F1, ['t01']), 0);
      assert.is(await index.delete(SALES, ['t06', 't02', 't02']), 2);
      assert.is(await index.count(SALES, query({})), 5);
      assert.is(await index.count(SALES, query({ terms: 'refund' })), 1);
    } finally {
      await index.close();
    }
  });

  write('a deleted transcript can be indexed again', async () => {
    const index = await fresh();
    try {
      await index.delete(F1, ['t04']);
      assert.equal(await tids(index, { terms: '"cancel my subscription"' }), ['t01']);
      await index.index([CORPUS[3]!]);
      assert.equal(await tids(index, { terms: '"cancel my subscription"' }), ['t04', 't01']);
    } finally {
      await index.close();
    }
  });

  write('an empty index answers with nothing', async () => {
    const index = await factory();
    await index.init();
    try {
      assert.is(await index.count(F1, query({ terms: 'refund' })), 0);
      assert.equal(await index.search(F1, query({})), { total: 0, rows: [] });
      assert.equal(await index.details(F1, query({ terms: 'a*' })), []);
      assert.is(await index.delete(F1, ['t01']), 0);
    } finally {
      await index.close();
    }
  });

  write.run();

  const bySpeaker = suite(`${name}: TranscriptIndex conformance (speakers)`);
  bySpeaker('hits carry the speaker; speaker=S2 matches only what S2 said; rows list the speakers', async () => {
    const index = await factory();
    await index.init();
    const u = (uttid: number, speaker: string, words: [string, number, number][]) => ({
      start: words[0]![1], end: words[words.length - 1]![2], confidence: 0.9, metadata: { channel: 0, uttid, speaker },
      events: words.map(([word, start, end]) => ({ word, start, end, confidence: 0.9 })),
    });
    const doc = {
      asr: 'x', model: 'm', audiosecs: 9, nchannels: 1, requestid: 'r', source: 'call.wav', chaninfo: [],
      utterances: [u(0, 'S1', [['cancel', 1, 1.4], ['my', 1.5, 1.6], ['contract', 1.7, 2.1]]), u(1, 'S2', [['why', 3, 3.2], ['cancel', 3.3, 3.7]])],
    };
    try {
      await index.index([{ tid: 'd1', company: F1.company, org: F1.org, folder: 'spk', datetime: '2024-01-01T00:00:00Z', document: doc }]);
      const scope = { company: F1.company, org: F1.org, folder: 'spk' };
      const all = await index.search(scope, query({ terms: 'cancel' }));
      assert.equal(all.rows[0]!.hits.map((h) => [h.speaker, h.start]), [['S1', 1], ['S2', 3.3]]);
      assert.equal(all.rows[0]!.speakers, ['S1', 'S2']);
      const s2 = await index.search(scope, query({ terms: 'cancel', speaker: 'S2' }));
      assert.is(s2.total, 1);
      assert.equal(s2.rows[0]!.hits.map((h) => [h.speaker, h.start]), [['S2', 3.3]]);
      assert.is(await index.count(scope, query({ terms: '"my contract"', speaker: 'S2' })), 0);
      assert.is(await index.count(scope, query({ terms: '"my contract"', speaker: 'S1' })), 1);
      assert.is(await index.count(scope, query({ speaker: 'S3' })), 0);
      assert.is(await index.count(scope, query({ speaker: 'S2' })), 1);
    } finally {
      await index.close();
    }
  });
  bySpeaker('role=agent matches only what the agent said (stereo, not diarized); hits carry the role; crosstalk is not indexed', async () => {
    const index = await factory();
    await index.init();
    const u = (uttid: number, channel: number, role: 'agent' | 'customer' | undefined, words: [string, number, number][], crosstalk = false) => ({
      start: words[0]![1], end: words[words.length - 1]![2], confidence: 0.9,
      metadata: { channel, uttid, ...(role ? { role } : {}), ...(crosstalk ? { crosstalk } : {}) },
      events: words.map(([word, start, end]) => ({ word, start, end, confidence: 0.9 })),
    });
    const withRoles = {
      asr: 'x', model: 'm', audiosecs: 9, nchannels: 2, requestid: 'r', source: 'call.wav', chaninfo: [],
      utterances: [
        u(0, 0, 'agent', [['thank', 0.5, 0.7], ['you', 0.7, 0.9], ['for', 0.9, 1], ['calling', 1, 1.4]]),
        u(1, 1, 'customer', [['cancel', 2, 2.4], ['my', 2.5, 2.6], ['contract', 2.7, 3.1]]),
        u(2, 0, 'agent', [['why', 4, 4.2], ['cancel', 4.3, 4.7]]),
        u(3, 1, undefined, [['refund', 4.3, 4.7]], true), // the agent's "cancel" heard on the customer's line, kept to be seen
      ],
    };
    const noRoles = { ...withRoles, requestid: 'r2', utterances: withRoles.utterances.map((x) => ({ ...x, metadata: { channel: x.metadata.channel, uttid: x.metadata.uttid } })).slice(0, 3) };
    try {
      await index.index([
        { tid: 'r1', company: F1.company, org: F1.org, folder: 'role', datetime: '2024-01-01T00:00:00Z', document: withRoles },
        { tid: 'r2', company: F1.company, org: F1.org, folder: 'role', datetime: '2024-01-02T00:00:00Z', document: noRoles },
      ]);
      const scope = { company: F1.company, org: F1.org, folder: 'role' };
      const all = await index.search(scope, query({ terms: 'cancel', sort: 'datetime', sortdir: 'asc' }));
      assert.equal(all.rows.map((r) => r.tid), ['r1', 'r2']);
      assert.equal(all.rows[0]!.hits.map((h) => [h.channel, h.role, h.start]), [[1, 'customer', 2], [0, 'agent', 4.3]]);
      assert.equal(all.rows[1]!.hits.map((h) => h.role), [undefined, undefined]);
      const agent = await index.search(scope, query({ terms: 'cancel', role: 'agent' }));
      assert.equal(agent.rows.map((r) => r.tid), ['r1']);
      assert.equal(agent.rows[0]!.hits.map((h) => [h.role, h.start]), [['agent', 4.3]]);
      const agentByScore = await index.search(scope, query({ terms: 'cancel', role: 'agent', sort: 'score' }));
      assert.equal([agentByScore.total, agentByScore.rows.map((r) => r.tid)], [1, ['r1']], 'sorted by score, the total counts the role\'s matches too');
      assert.is(await index.count(scope, query({ terms: '"my contract"', role: 'agent' })), 0);
      assert.is(await index.count(scope, query({ terms: '"my contract"', role: 'customer' })), 1);
      assert.is(await index.count(scope, query({ terms: '"thank you for calling"', role: 'agent', channel: '0' })), 1);
      assert.is(await index.count(scope, query({ role: 'customer' })), 1);
      assert.is(await index.count(scope, query({ terms: 'refund' })), 0);
    } finally {
      await index.close();
    }
  });
  bySpeaker.run();

  // Call analytics (src/search/analytics-fields.ts): sentiment labels, overtalk/silence, categories.
  const analytics = suite<{ index: TranscriptIndex }>(`${name}: TranscriptIndex conformance (call analytics)`);
  analytics.before(async (ctx) => {
    ctx.index = await factory();
    await ctx.index.init();
    const docs = CORPUS.map((t, i) => {
      const d = structuredClone(t);
      if (i < 4) d.document.metrics = { overtalksecs: [3, 0, 7.5, 1][i]!, silencesecs: [2, 9, 0, 4][i]!, longestsilencesecs: 1, talksecs: {}, wordsperminute: {} };
      if (i === 0) d.document.utterances[0]!.metadata.sentiment = 'Negative';
      if (i === 3) d.document.utterances[0]!.metadata.sentiment = 'Mostly Positive';
      if (i === 1) d.document.categories = ['billing', 'cancel'];
      return d;
    });
    await ctx.index.index(docs);
  });
  analytics.after(async (ctx) => ctx.index.close());

  const rowsOf = async (index: TranscriptIndex, raw: RawOptions, scope: SearchScope = F1) => (await index.search(scope, query(raw))).rows.map((r) => r.tid);

  analytics('sentiment=, overtalk= and sort=overtalk|silence (missing values lowest)', async ({ index }) => {
    assert.equal(await rowsOf(index, { sentiment: 'Negative' }), ['t01']);
    assert.equal(await rowsOf(index, { sentiment: 'Mostly Positive' }), ['t04']);
    assert.equal(await rowsOf(index, { sentiment: 'Positive' }), []);
    assert.equal(await rowsOf(index, { overtalk: '1-5' }), ['t04', 't01']);
    assert.equal(await rowsOf(index, { overtalk: '-0.5' }), ['t02']);
    assert.equal(await rowsOf(index, { overtalk: '2-', sort: 'overtalk' }), ['t03', 't01']);
    assert.equal((await rowsOf(index, { sort: 'overtalk', sortdir: 'desc' })).slice(0, 4), ['t03', 't01', 't04', 't02']);
    assert.equal((await rowsOf(index, { sort: 'silence', sortdir: 'desc' })).slice(0, 4), ['t02', 't04', 't01', 't03']);
    assert.equal((await rowsOf(index, { sort: 'silence', sortdir: 'asc' })).slice(-4), ['t03', 't01', 't04', 't02']);
  });

  analytics('categories: indexed with the document, changed by setCategories, filtered, counted, shown in rows and details', async ({ index }) => {
    assert.equal(await rowsOf(index, { category: 'cancel' }), ['t02']);
    await index.setCategories('acme', [{ tid: 't01', categories: ['cancel'] }, { tid: 't02', categories: ['billing'] }, { tid: 't07', categories: ['x'] }]);
    assert.equal(await rowsOf(index, { category: 'cancel' }), ['t01']);
    assert.equal(await rowsOf(index, { category: 'cancel,billing' }), ['t02', 't01']);
    assert.equal(await index.categoryCounts('acme'), { billing: 1, cancel: 1 });
    assert.equal(await index.categoryCounts('other'), {}, 'another company\'s transcript is not changed');
    const rows = (await index.search(F1, query({ category: 'cancel,billing', fields: 'tid,categories' }))).rows;
    assert.equal(rows.map((r) => [r.tid, r.categories]), [['t02', ['billing']], ['t01', ['cancel']]]);
    const plain = (await index.search(F1, query({ requestid: 'req-3' }))).rows[0]!;
    assert.is(plain.categories, undefined, 'no categories: no field');
    const [t02] = await index.details(F1, query({ requestid: 'req-2' }));
    assert.equal(t02!.categories, ['billing']);
    await index.setCategories('acme', [{ tid: 't02', categories: [] }]);
    const [again] = await index.details(F1, query({ requestid: 'req-2' }));
    assert.equal(again!.categories, []);
  });

  analytics('categoryScan pages through every transcript of the company once, with words and current categories', async ({ index }) => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await index.categoryScan('acme', cursor, 4);
      pages++;
      for (const item of page.items) {
        seen.push(item.tid);
        const spec = CORPUS.find((t) => t.tid === item.tid)!;
        assert.is(item.org, spec.org);
        assert.equal(item.words.map((w) => w.norm.join(' ')), channelWords(spec.document).map((w) => w.norm.join(' ')));
        if (item.tid === 't01') assert.equal(item.categories, ['cancel']);
        if (item.tid === 't03') assert.equal((await item.document!()).requestid, 'req-3');
      }
      cursor = page.next;
    } while (cursor !== undefined && pages < 10);
    assert.equal(seen.sort(), CORPUS.filter((t) => t.company === 'acme').map((t) => t.tid).sort());
    assert.equal((await index.categoryScan('nobody', undefined, 4)).items, []);
  });

  analytics.run();

  // Dashboard aggregations (src/search/aggregate.ts): the index's figures against a plain count over the documents.
  const agg = suite<{ index: TranscriptIndex; docs: IndexedTranscript[] }>(`${name}: TranscriptIndex conformance (aggregations)`);
  agg.before(async (ctx) => {
    ctx.index = await factory();
    await ctx.index.init();
    ctx.docs = analyticsCorpus();
    await ctx.index.index(ctx.docs);
  });
  agg.after(async (ctx) => ctx.index.close());

  agg('figures of an org: each share with its own denominator, per day and in total', async ({ index }) => {
    const a = await index.aggregate(SALES, query({}), { tzOffsetMin: 0 });
    assert.equal(a.total, {
      calls: 8,
      sentiment: { analysed: 3, negative: 2, labels: { 'Mostly Negative': 1, 'Mostly Positive': 1, Negative: 1, Neutral: 1 } },
      metrics: { analysed: 6, overtalkCalls: 4, overtalkSecs: 12.75, silenceSecs: 16.5 },
      categories: { billing: 2, cancel: 3 },
    });
    assert.equal(a.days.map((d) => [d.day, d.calls]), [
      ['2024-03-01', 1], ['2024-03-02', 1], ['2024-03-03', 1], ['2024-03-04', 1], ['2024-03-05', 1], ['2024-03-09', 1], ['2024-03-10', 1], ['2024-04-01', 1],
    ]);
    assert.is(a.groups, undefined);
  });

  const requests: Array<[string, AggregateScope, RawOptions, AggregateRequest]> = [
    ['company, by org', { company: 'acme' }, {}, { tzOffsetMin: 0, by: { kind: 'org' } }],
    ['company, by folder', { company: 'acme' }, {}, { tzOffsetMin: 0, by: { kind: 'folder' } }],
    ['org, by meta.agent (calls without it: key null)', SALES, {}, { tzOffsetMin: 0, by: { kind: 'meta', field: 'agent' } }],
    ['folder, by meta.queue, days in UTC+10:30', F1, {}, { tzOffsetMin: 630, by: { kind: 'meta', field: 'queue' } }],
    ['days in UTC-05:00 move the early calls to the day before', SALES, {}, { tzOffsetMin: -300 }],
    ['with terms (word forms) and a range', SALES, { terms: 'cancels', from: '2024-03-02', to: '2024-03-31' }, { tzOffsetMin: 0, by: { kind: 'meta', field: 'agent' } }],
    ['with a category and a sentiment filter', SALES, { category: 'cancel', sentiment: 'any' }, { tzOffsetMin: 60 }],
    ['nothing matches', SALES, { terms: 'zebra' }, { tzOffsetMin: 0, by: { kind: 'org' } }],
  ];
  for (const [title, scope, raw, request] of requests) {
    agg(`equals a count over the documents: ${title}`, async ({ index, docs }) => {
      assert.equal(await index.aggregate(scope, query(raw), request), expectedAggregates(docs, scope, query(raw), request));
    });
  }

  agg('groups beyond the first 100 are summed as otherGroupsCalls', async () => {
    const index = await factory();
    await index.init();
    try {
      const base = CORPUS[0]!;
      await index.index(Array.from({ length: 103 }, (_, i) => {
        const d = structuredClone(base);
        d.tid = `g${String(i).padStart(3, '0')}`;
        d.document.streamtags = { metadata: { agent: `a${String(i % 102).padStart(3, '0')}` } };
        return d;
      }));
      const a = await index.aggregate(F1, query({}), { tzOffsetMin: 0, by: { kind: 'meta', field: 'agent' } });
      assert.is(a.groups!.length, 100);
      assert.equal(a.groups!.slice(0, 3).map((g) => [g.key, g.calls]), [['a000', 2], ['a001', 1], ['a002', 1]]);
      assert.is(a.groups!.at(-1)!.key, 'a099');
      assert.is(a.otherGroupsCalls, 2);
    } finally {
      await index.close();
    }
  });

  agg('categories named like Object members (constructor, __proto__, toString) are counted like any other', async () => {
    const index = await factory();
    await index.init();
    try {
      const names = [['constructor'], ['constructor', '__proto__'], ['toString', 'billing']];
      await index.index(names.map((categories, i) => {
        const d = structuredClone(CORPUS[0]!);
        d.tid = `p${i}`;
        d.document.categories = categories;
        return d;
      }));
      const a = await index.aggregate(F1, query({}), { tzOffsetMin: 0, by: { kind: 'org' } });
      const expected = JSON.parse('{"__proto__":1,"billing":1,"constructor":2,"toString":1}');
      assert.equal(JSON.parse(JSON.stringify(a.total.categories)), expected);
      assert.equal(JSON.parse(JSON.stringify(a.groups![0]!.categories)), expected);
      assert.equal(a.days.reduce((n, d) => n + (Object.hasOwn(d.categories, 'constructor') ? d.categories.constructor as unknown as number : 0), 0), 2);
    } finally {
      await index.close();
    }
  });

  agg.run();

  // Redaction (issue 25): a redacted name is never findable; `[NAME]` and `redacted=name` find the calls where one was redacted.
  const redaction = suite<{ index: TranscriptIndex }>(`${name}: TranscriptIndex conformance (redacted words)`);
  redaction.before(async (ctx) => {
    ctx.index = await factory();
    await ctx.index.init();
    const docs = CORPUS.filter((t) => ['t01', 't02', 't05'].includes(t.tid)).map((t) => structuredClone(t));
    // t01: "hi i want to cancel my subscription" said as "hi i am john smith …": john smith redacted as names.
    const u = docs[0]!.document.utterances.find((x) => x.metadata.channel === 1)!;
    u.events.splice(1, 3, { ...u.events[1]!, word: '[NAME]', redacted: 'name' }, { ...u.events[2]!, word: '[NAME]', redacted: 'name' });
    // t02: a card's digits redacted; t05: an email marked by scrubtext=tag (its words kept).
    docs[1]!.document.utterances[0]!.events[1] = { ...docs[1]!.document.utterances[0]!.events[1]!, word: '####', redacted: 'card' };
    for (const e of docs[2]!.document.utterances[1]!.events.slice(0, 2)) e.pii = 'email';
    await ctx.index.index(docs);
  });
  redaction.after(async (ctx) => ctx.index.close());

  redaction('[NAME] finds the redacted names with [NAME] in the snippet; redacted= filters by kind; [FOO] is a bad query', async ({ index }) => {
    const r = await index.search(F1, query({ terms: '[NAME]' }));
    assert.equal(r.rows.map((x) => [x.tid, x.hits.map((h) => h.text)]), [['t01', ['hi [NAME] [NAME] cancel my', 'hi [NAME] [NAME] cancel my subscription']]]);
    assert.is(await index.count(F1, query({ terms: '"hi [name] [name] cancel"' })), 1);
    assert.is(await index.count(F1, query({ terms: '[CARD]' })), 1);
    assert.is(await index.count(F1, query({ terms: '[EMAIL]' })), 0, 'a marked word is searchable as itself, not as its kind');
    assert.equal(await rowsOf(index, { redacted: 'name' }), ['t01']);
    assert.equal(await rowsOf(index, { redacted: 'email' }), ['t05']);
    assert.equal(await rowsOf(index, { redacted: 'Name,card' }), ['t02', 't01']);
    assert.equal(await rowsOf(index, { redacted: 'address' }), []);
    assert.equal(await rowsOf(index, { redacted: 'name', terms: 'refund' }), ['t01']);
    assert.throws(() => query({ terms: '[FOO]' }), /\[FOO\] at position 0 names no redaction kind/);
    assert.throws(() => query({ redacted: 'names' }), /redaction kinds/);
  });
  redaction.run();

  // Readable snippets (issue 29): a hit in a transcript with `text` shows the text's words, numbers as written.
  const readable = suite<{ index: TranscriptIndex }>(`${name}: TranscriptIndex conformance (readable snippets)`);
  readable.before(async (ctx) => {
    ctx.index = await factory();
    await ctx.index.init();
    const doc = structuredClone(CORPUS[0]!);
    // t01 channel 0 as Moonshine writes it: "hello, thanks for calling. my number is five five five oh one four two".
    const u = doc.document.utterances.find((x) => x.metadata.channel === 0)!;
    const words = 'hello thanks for calling my number is 5550142 okay'.split(' ');
    u.events = words.map((word, i) => ({ word, start: wordStart(0, 0, i), end: wordStart(0, 0, i) + 0.4, confidence: 0.9 }));
    u.text = 'Hello, thanks for calling. My number is 555-0142. Okay?';
    await ctx.index.index([doc]);
  });
  readable.after(async (ctx) => ctx.index.close());

  readable('hits show the readable text of the words around them; a transcript without text shows its words', async ({ index }) => {
    const r = await index.search(F1, query({ terms: 'number' }));
    assert.equal(r.rows[0]!.hits.map((h) => h.text), ['for calling. My number is 555-0142. Okay?']);
    assert.equal((await index.search(F1, query({ terms: 'hello' }))).rows[0]!.hits.map((h) => h.text), ['Hello, thanks for calling.']);
    assert.equal((await index.search(F1, query({ terms: 'subscription' }))).rows[0]!.hits.map((h) => h.text), ['to cancel my subscription the refund never']);
  });
  readable.run();
}

/** The conformance corpus with sentiment labels, metrics and categories on some calls. */
function analyticsCorpus(): IndexedTranscript[] {
  return CORPUS.map((t, i) => {
    const d = structuredClone(t);
    const labels: Record<string, string[]> = { t01: ['Negative', 'Neutral'], t02: ['Mostly Positive'], t05: ['Mostly Negative'], t07: ['Negative'] };
    (labels[t.tid] ?? []).forEach((label, k) => (d.document.utterances[k]!.metadata.sentiment = label as 'Negative'));
    if (i < 6 || t.tid === 't07') {
      d.document.metrics = { overtalksecs: [3, 0, 7.5, 1.25, 1, 0, 9][i]!, silencesecs: [2, 9, 0, 4, 1.5, 0, 1][i]!, longestsilencesecs: 1, talksecs: {}, wordsperminute: {} };
    }
    const cats: Record<string, string[]> = { t01: ['cancel'], t02: ['billing', 'cancel'], t04: ['cancel'], t06: ['billing'], t07: ['cancel'] };
    if (cats[t.tid]) d.document.categories = cats[t.tid]!;
    return d;
  });
}

/** The aggregation worked out directly from the documents and the reference matcher, without an index. */
function expectedAggregates(docs: IndexedTranscript[], scope: AggregateScope, q: SearchQuery, request: AggregateRequest): Aggregates {
  const matching = docs.filter((t) => {
    const d = t.document;
    const labels = new Set(d.utterances.map((u) => u.metadata.sentiment).filter((l) => l !== undefined));
    const dt = Date.parse(t.datetime);
    return t.company === scope.company && (scope.org === undefined || t.org === scope.org) && (scope.folder === undefined || t.folder === scope.folder) &&
      (q.terms === undefined || evaluate(q.terms, channelWords(d), q.channel)) &&
      (q.fromMs === undefined || dt >= q.fromMs) && (q.toMs === undefined || dt <= q.toMs) &&
      (q.categories === undefined || q.categories.some((c) => (d.categories ?? []).includes(c))) &&
      (q.sentiment === undefined || q.sentiment.some((l) => labels.has(l as 'Negative')));
  });
  const figures = (ts: IndexedTranscript[]) => {
    const f = emptyFigures();
    for (const t of ts) {
      const d = t.document;
      const labels = new Set(d.utterances.map((u) => u.metadata.sentiment).filter((l): l is NonNullable<typeof l> => l !== undefined));
      f.calls++;
      if (labels.size > 0) f.sentiment.analysed++;
      if (labels.has('Negative') || labels.has('Mostly Negative')) f.sentiment.negative++;
      for (const l of labels) f.sentiment.labels[l] = (f.sentiment.labels[l] ?? 0) + 1;
      if (d.metrics) {
        f.metrics.analysed++;
        if (d.metrics.overtalksecs > 0) f.metrics.overtalkCalls++;
        f.metrics.overtalkSecs += d.metrics.overtalksecs;
        f.metrics.silenceSecs += d.metrics.silencesecs;
      }
      for (const c of d.categories ?? []) f.categories[c] = (f.categories[c] ?? 0) + 1;
    }
    return tidyFigures(f);
  };
  const dayOfCall = (t: IndexedTranscript) => new Date(Date.parse(t.datetime) + request.tzOffsetMin * 60_000).toISOString().slice(0, 10);
  const days = [...new Set(matching.map(dayOfCall))].sort().map((day) => ({ day, ...figures(matching.filter((t) => dayOfCall(t) === day)) }));
  const out: Aggregates = { total: figures(matching), days };
  const by = request.by;
  if (by) {
    const keyOf = (t: IndexedTranscript): string | null => {
      if (by.kind === 'org') return t.org;
      if (by.kind === 'folder') return `${t.org}/${t.folder}`;
      const v = t.document.streamtags?.metadata?.[by.field];
      return v === undefined || v === null ? null : typeof v === 'string' ? v : JSON.stringify(v);
    };
    const keys = [...new Set(matching.map(keyOf))];
    const groups = keys.map((key) => ({ key, ...figures(matching.filter((t) => keyOf(t) === key)) }));
    groups.sort((a, b) => (a.key === null ? 1 : b.key === null ? -1 : b.calls - a.calls || (a.key < b.key ? -1 : 1)));
    out.groups = groups;
  }
  return out;
}

export const transcriptIndexConformance = runTranscriptIndexConformance;
