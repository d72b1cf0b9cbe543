/**
 * The embedded transcript index: one SQLite file (WAL) through better-sqlite3.
 * - `transcripts`: one row per transcript (scope, call time, filters, metadata JSON, the document JSON);
 * - `fts`: contentless FTS5, one row per transcript (rowid = transcripts.id), one column per channel;
 * - `words`: per channel the original words and their start/end times, to turn matches into hits in the app;
 * - `meta`: (field, value-as-text) pairs for `meta.<field>=value`.
 * Queries put the full-text match first (`id IN (SELECT rowid FROM fts WHERE fts MATCH ?)`), see
 * SEARCH-FINDINGS.md; hits, snippets and scores come from src/search/match.ts.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type Database from 'better-sqlite3';
import { openSqlite, openSqliteReader } from '../store/sqlite/sqlite.js';
import { voxdexError } from '../errors.js';
import { mapPaced, type CpuBudget } from './budget.js';
import type { SearchAnswers } from './search-answer.js';
import { searchThread } from './search-thread.js';
import { type ChannelWords, channelWords, findHits, fromSpeakerRuns, metaText, byPart, queryWords, speakerMatches, speakerRuns, speakersOf, type SpeakerRuns } from './match.js';
import { FTS_COLUMNS, MAX_CHANNELS, termsCondition, vocabLookups } from './sqlite-fts.js';
import { wordStems } from './word-forms.js';
import { documentAnalytics, withCategories } from './analytics-fields.js';
import type { TranscriptDocument } from '../types.js';
import { sqliteAggregate } from './sqlite-aggregate.js';
import type {
  AggregateRequest,
  Aggregates,
  AggregateScope,
  CategoryScanPage,
  IndexedTranscript,
  SearchQuery,
  SearchResult,
  SearchScope,
  StoredTranscript,
  SummaryRow,
  TranscriptIndex,
} from './transcript-index.js';

interface SqliteIndexOptions {
  /** The database file, e.g. `<dataDir>/search.sqlite`; its folder is created if missing. */
  file: string;
  /**
   * A second connection that only reads (the search thread's, search-thread.ts): the file must exist
   * with this schema; nothing is created or migrated, and writes are refused (opened read-only).
   */
  readOnly?: boolean;
}

interface Row {
  id: number;
  tid: string;
  datetime: string;
  duration: number;
  nchannels: number;
  model: string;
  filename: string;
  confidence: number | null;
  metadata: string;
}

/**
 * Call analytics (analytics-fields.ts), added to schema 1 without changing it (a file indexed before
 * has no rows here: no categories, no labels, missing metrics sort lowest): category membership
 * (changed by the backfill without re-indexing), the distinct utterance sentiment labels, the
 * overtalk / silence seconds, and the kinds redacted in the call (`redacted=`).
 */
const ANALYTICS_TABLES = `
  CREATE TABLE IF NOT EXISTS tcat (name TEXT NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (name, id)) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS tcat_id ON tcat (id);
  CREATE TABLE IF NOT EXISTS tsent (label TEXT NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (label, id)) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS tsent_id ON tsent (id);
  CREATE TABLE IF NOT EXISTS tmetrics (id INTEGER PRIMARY KEY, overtalk REAL, silence REAL);
  CREATE TABLE IF NOT EXISTS tredact (kind TEXT NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (kind, id)) WITHOUT ROWID;`;

/**
 * Stored in PRAGMA user_version; a file with another version is refused rather than misread.
 * 2: the FTS table has the stem columns s0…s15 (word forms, word-forms.ts); a file of version 1 is
 * migrated at open by rebuilding the FTS table from the `words` table (`rebuildFts`).
 */
export const SCHEMA_VERSION = 2;
/** Calls read (categoryScan) or written (setCategories) between two turns of the event loop. */
const SCAN_SLICE = 100;
/** One slice of the category backfill's scan: the company's calls after a cursor, in id order (index transcripts_company). */
export const CATEGORY_SCAN_SQL = `SELECT t.id, t.tid, t.org, w.channels, w.times, (SELECT group_concat(name, char(31)) FROM tcat c WHERE c.id = t.id) AS cats
  FROM transcripts t JOIN words w ON w.id = t.id WHERE t.company = ? AND t.id > ? ORDER BY t.id LIMIT ?`;
const FTS_TABLES = `
  CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(${FTS_COLUMNS.join(', ')},
    content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0');
  CREATE VIRTUAL TABLE IF NOT EXISTS fts_vocab USING fts5vocab(fts, 'col');`;

const SORT_COLUMN = {
  datetime: 't.dt', duration: 't.duration', filename: 't.filename', confidence: 't.confidence',
  overtalk: '(SELECT overtalk FROM tmetrics m WHERE m.id = t.id)', silence: '(SELECT silence FROM tmetrics m WHERE m.id = t.id)',
} as const;
const ROW_COLUMNS = 't.id, t.tid, t.datetime, t.duration, t.nchannels, t.model, t.filename, t.confidence, t.metadata';

export class SqliteTranscriptIndex implements TranscriptIndex {
  readonly #file: string;
  readonly #readOnly: boolean;
  #answers: SearchAnswers | undefined;
  /** PRAGMA data_version when the wildcard cache was last valid (a read-only connection: another one writes). */
  #dataVersion = -1;
  #db: Database.Database | undefined;
  #vocab: Database.Statement | undefined;
  #vocabFrom: Database.Statement | undefined;
  readonly #statements = new Map<string, Database.Statement>();
  /** Wildcard → indexed words; emptied whenever the index changes. */
  readonly #expansions = new Map<string, string[]>();

  constructor(options: SqliteIndexOptions) {
    this.#file = options.file;
    this.#readOnly = options.readOnly ?? false;
  }

  /**
   * Where the search route has this index's searches answered: its read thread (search-thread.ts),
   * started on the first search and closed with the index. An in-memory database has none.
   */
  searchAnswers(): SearchAnswers | undefined {
    if (this.#file === ':memory:' || this.#readOnly) return undefined;
    const thread = () => {
      void this.#conn; // INDEX_UNAVAILABLE until this index is open (and once it is closed)
      return (this.#answers ??= searchThread(this.#file));
    };
    return {
      answer: (request) => thread().answer(request),
      aggregate: (scope, raw) => thread().aggregate(scope, raw),
      close: async () => {},
    };
  }

  /** A prepared statement, cached per SQL text (queries with terms vary; the cache is bounded). */
  #prepare(sql: string): Database.Statement {
    let st = this.#statements.get(sql);
    if (!st) {
      if (this.#statements.size > 500) this.#statements.clear();
      st = this.#conn.prepare(sql);
      this.#statements.set(sql, st);
    }
    return st;
  }

  get #conn(): Database.Database {
    if (!this.#db) throw voxdexError('INDEX_UNAVAILABLE', 'The search index is not open (the service is starting or stopping); retry shortly.');
    return this.#db;
  }

  async init(): Promise<void> {
    if (this.#db) return;
    if (this.#readOnly) return this.#openReader();
    const db = openSqlite(this.#file, 'NORMAL');
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version !== 0 && version !== 1 && version !== SCHEMA_VERSION) {
      db.close();
      throw voxdexError('INDEX_UNAVAILABLE', `${this.#file} holds search index schema ${version}, this voxdex reads ${SCHEMA_VERSION}; rebuild the index.`);
    }
    db.exec(`
      CREATE TABLE IF NOT EXISTS transcripts (
        id INTEGER PRIMARY KEY,
        tid TEXT NOT NULL UNIQUE,
        company TEXT NOT NULL, org TEXT NOT NULL, folder TEXT NOT NULL,
        dt INTEGER NOT NULL, datetime TEXT NOT NULL,
        duration REAL NOT NULL, nchannels INTEGER NOT NULL,
        model TEXT NOT NULL, filename TEXT NOT NULL, requestid TEXT NOT NULL,
        confidence REAL, indexed_at TEXT NOT NULL,
        metadata TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS transcripts_scope_dt ON transcripts (company, org, folder, dt);
      -- A company's calls in id order (the category backfill's scan, a page from a cursor): the index on
      -- company alone holds them sorted by rowid; without it each page sorted all the company's calls.
      CREATE INDEX IF NOT EXISTS transcripts_company ON transcripts (company);
      CREATE TABLE IF NOT EXISTS docs (id INTEGER PRIMARY KEY, doc BLOB NOT NULL);
      CREATE TABLE IF NOT EXISTS words (id INTEGER PRIMARY KEY, channels TEXT NOT NULL, times BLOB NOT NULL);
      CREATE TABLE IF NOT EXISTS meta (
        field TEXT NOT NULL, value TEXT NOT NULL, id INTEGER NOT NULL,
        PRIMARY KEY (field, value, id)) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS meta_id ON meta (id);
      ${ANALYTICS_TABLES}
    `);
    if (version === 1) rebuildFts(db);
    else db.exec(FTS_TABLES);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
    // Sorts, GROUP BYs and the dashboard's temporary table (sqlite-aggregate.ts) stay in memory, never in temp files.
    db.pragma('temp_store = MEMORY');
    this.#db = db;
    this.#prepareVocabulary(db);
  }

  #openReader(): void {
    let db: Database.Database;
    try {
      db = openSqliteReader(this.#file);
    } catch (err) {
      throw voxdexError('INDEX_UNAVAILABLE', `The search index could not be read (${(err as Error).message}); retry shortly.`, err);
    }
    db.pragma('temp_store = MEMORY');
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version !== SCHEMA_VERSION) {
      db.close();
      throw voxdexError('INDEX_UNAVAILABLE', `${this.#file} holds search index schema ${version}, this voxdex reads ${SCHEMA_VERSION}; retry once the service has opened it.`);
    }
    this.#db = db;
    this.#prepareVocabulary(db);
  }

  #prepareVocabulary(db: Database.Database): void {
    // Wildcards stand for written words: the word columns' vocabulary (c0…c15), not the stems'.
    this.#vocab = db.prepare(`SELECT DISTINCT term FROM fts_vocab WHERE term GLOB ? AND col GLOB 'c*' ORDER BY term LIMIT ?`).pluck();
    this.#vocabFrom = db
      .prepare(`SELECT DISTINCT term FROM fts_vocab WHERE term >= ? AND term < ? AND term GLOB ? AND col GLOB 'c*' ORDER BY term LIMIT ?`)
      .pluck();
  }

  async index(docs: readonly IndexedTranscript[]): Promise<void> {
    const db = this.#conn;
    const find = this.#prepare('SELECT id FROM transcripts WHERE tid = ?').pluck();
    const insert = this.#prepare(`INSERT INTO transcripts
      (tid, company, org, folder, dt, datetime, duration, nchannels, model, filename, requestid, confidence, indexed_at, metadata)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    const insertDoc = this.#prepare('INSERT INTO docs (id, doc) VALUES (?, ?)');
    const insertFts = this.#prepare(INSERT_FTS);
    const insertWords = this.#prepare('INSERT INTO words (id, channels, times) VALUES (?, ?, ?)');
    const insertMeta = this.#prepare('INSERT OR IGNORE INTO meta (field, value, id) VALUES (?, ?, ?)');
    const now = new Date().toISOString();
    this.#expansions.clear();
    db.transaction(() => {
      for (const t of docs) {
        const old = find.get(t.tid) as number | undefined;
        if (old !== undefined) this.#remove(old);
        const d = t.document;
        const metadata = d.streamtags?.metadata ?? {};
        const dt = Date.parse(t.datetime);
        if (!Number.isFinite(dt)) throw voxdexError('BAD_ARGUMENT', `Transcript ${t.tid} has an invalid datetime ${JSON.stringify(t.datetime)}`);
        const id = Number(
          insert.run(t.tid, t.company, t.org, t.folder, dt, t.datetime, d.audiosecs ?? 0, d.nchannels ?? 0, d.model ?? '',
            d.source ?? '', d.requestid ?? '', d.confidence ?? null, t.indexedAt ?? now, JSON.stringify(metadata)).lastInsertRowid,
        );
        insertDoc.run(id, deflateRawSync(JSON.stringify(d), { level: 1 }));
        const cws = channelWords(d);
        const words = encodeWords(cws);
        insertWords.run(id, words.channels, words.times);
        insertFts.run(id, ...ftsColumns(cws));
        for (const [field, value] of Object.entries(metadata)) {
          const text = metaText(value);
          if (text !== undefined) insertMeta.run(field, text, id);
        }
        this.#indexAnalytics(id, d);
      }
    })();
  }

  #remove(id: number): void {
    this.#expansions.clear();
    this.#prepare('DELETE FROM fts WHERE rowid = ?').run(id);
    this.#prepare('DELETE FROM words WHERE id = ?').run(id);
    this.#prepare('DELETE FROM docs WHERE id = ?').run(id);
    this.#prepare('DELETE FROM meta WHERE id = ?').run(id);
    for (const table of ['tcat', 'tsent', 'tmetrics', 'tredact']) this.#prepare(`DELETE FROM ${table} WHERE id = ?`).run(id);
    this.#prepare('DELETE FROM transcripts WHERE id = ?').run(id);
  }

  async delete(scope: SearchScope, tids: readonly string[]): Promise<number> {
    const db = this.#conn;
    const { sql, params } = scopeCondition(scope);
    const find = this.#prepare(`SELECT id FROM transcripts t WHERE t.tid = ? AND ${sql}`).pluck();
    return db.transaction(() => {
      let n = 0;
      for (const tid of new Set(tids)) {
        const id = find.get(tid, ...params) as number | undefined;
        if (id !== undefined) {
          this.#remove(id);
          n++;
        }
      }
      return n;
    })();
  }

  async count(scope: SearchScope, query: SearchQuery): Promise<number> {
    await this.#lookUpWildcards(query);
    if (byPart(query)) return (await this.#bySpeaker(scope, query)).length;
    const { sql, params } = this.#where(scope, query);
    return counted(query, () => this.#prepare(`SELECT count(*) FROM transcripts t WHERE ${sql}`).pluck().get(...params) as number);
  }

  async search(scope: SearchScope, query: SearchQuery): Promise<SearchResult> {
    await this.#lookUpWildcards(query);
    // Sorted by score every match is scored anyway: their number is the total (no count statement).
    const matches = scoresAll(query) ? await this.#allMatches(scope, query) : undefined;
    const total = matches ? matches.length : await this.count(scope, query);
    const page = (await this.#page(scope, query, ROW_COLUMNS, matches)) as unknown as Array<Row & { words?: ChannelWords[] }>;
    const rows = await mapPaced(page, query.budget, (r): SummaryRow => {
      const words = r.words ?? this.#words(r.id);
      const { score, hits } = findHits(query.terms, queryWords(words, query), query.channel, query.budget);
      const speakers = speakersOf(words);
      const row: SummaryRow = {
        tid: r.tid,
        filename: r.filename,
        datetime: r.datetime,
        duration: r.duration,
        nchannels: r.nchannels,
        model: r.model,
        score,
        metadata: JSON.parse(r.metadata) as Record<string, unknown>,
        hits,
      };
      if (speakers.length > 0) row.speakers = speakers;
      if (r.confidence !== null) row.confidence = r.confidence;
      const categories = this.#categoriesOf(r.id);
      if (categories.length > 0) row.categories = categories;
      return row;
    });
    return { total, rows };
  }

  async details(scope: SearchScope, query: SearchQuery): Promise<StoredTranscript[]> {
    await this.#lookUpWildcards(query);
    const get = this.#prepare('SELECT doc FROM docs WHERE id = ?').pluck();
    return ((await this.#page(scope, query, 't.id, t.tid')) as Array<{ id: number; tid: string }>).map((r) => ({
      tid: r.tid,
      ...withCategories(JSON.parse(inflateRawSync(get.get(r.id) as Buffer).toString('utf8')) as TranscriptDocument, this.#categoriesOf(r.id)),
    }));
  }

  async aggregate(scope: AggregateScope, query: SearchQuery, request: AggregateRequest): Promise<Aggregates> {
    return sqliteAggregate((sql) => this.#prepare(sql), this.#where(scope, { ...query, speaker: undefined }), request);
  }

  async purgeDeleted(): Promise<void> {
    const db = this.#conn;
    db.pragma('secure_delete = ON');
    // FTS5 keeps a deleted row's tokens in its segments until they are merged.
    db.exec(`INSERT INTO fts(fts) VALUES ('optimize')`);
    db.exec('VACUUM');
    db.pragma('wal_checkpoint(TRUNCATE)');
  }

  async close(): Promise<void> {
    await this.#answers?.close();
    this.#answers = undefined;
    this.#statements.clear();
    this.#db?.close();
    this.#db = undefined;
  }

  /** One page of rows in the requested order (score: computed in the app over all matches, pacing the search's budget). */
  async #page(scope: SearchScope, query: SearchQuery, columns: string, matches?: Array<{ id: number; tid: string }>): Promise<Array<Record<string, unknown>>> {
    const { sql, params } = this.#where(scope, query);
    if (query.size === 0) return [];
    if (byPart(query)) {
      const get = this.#prepare(`SELECT ${columns} FROM transcripts t WHERE t.id = ?`);
      return (await this.#bySpeaker(scope, query))
        .slice(query.offset, query.offset + query.size)
        .map((s) => ({ ...(get.get(s.id) as Record<string, unknown>), words: s.words }));
    }
    if (!scoresAll(query)) {
      const key = query.sort === 'score' ? undefined : SORT_COLUMN[query.sort];
      const order = key ? `${key} ${query.sortdir === 'asc' ? 'ASC' : 'DESC'}, t.tid ASC` : 't.tid ASC';
      return counted(query, () =>
        this.#prepare(`SELECT ${columns} FROM transcripts t WHERE ${sql} ORDER BY ${order} LIMIT ? OFFSET ?`).all(...params, query.size, query.offset),
      ) as Array<Record<string, unknown>>;
    }
    const all = matches ?? (await this.#allMatches(scope, query));
    const scored = await mapPaced(all, query.budget, (r) => {
      const words = this.#words(r.id);
      return { ...r, words, score: findHits(query.terms, words, query.channel, query.budget).score };
    });
    const dir = query.sortdir === 'asc' ? 1 : -1;
    scored.sort((a, b) => dir * (a.score - b.score) || (a.tid < b.tid ? -1 : a.tid > b.tid ? 1 : 0));
    const slice = scored.slice(query.offset, query.offset + query.size);
    const get = this.#prepare(`SELECT ${columns} FROM transcripts t WHERE t.id = ?`);
    return slice.map((s) => ({ ...(get.get(s.id) as Record<string, unknown>), words: s.words }));
  }

  /**
   * Every match in scope (id, tid), to be scored in the app. A top-level OR is fetched one alternative
   * per statement, the event loop answering between them (the union is the same rows): as one
   * statement, 64 broad prefixes in OR held the loop 186 ms of CPU (bench/hostile-search.ts), and a
   * SQLite statement cannot be interrupted.
   */
  async #allMatches(scope: SearchScope, query: SearchQuery): Promise<Array<{ id: number; tid: string }>> {
    const alternatives = query.terms?.type === 'or' ? query.terms.children : [query.terms];
    const byId = new Map<number, { id: number; tid: string }>();
    for (const terms of alternatives) {
      await query.budget?.pace();
      const { sql, params } = this.#where(scope, { ...query, terms });
      const rows = counted(query, () => this.#prepare(`SELECT t.id, t.tid FROM transcripts t WHERE ${sql}`).all(...params)) as Array<{ id: number; tid: string }>;
      for (const r of rows) byId.set(r.id, r);
    }
    return [...byId.values()];
  }

  /**
   * With `speaker`: the SQL matches (the terms said by anyone) checked in the app against that
   * speaker's words alone, in the requested order. The transcript's words are read for each candidate.
   */
  async #bySpeaker(scope: SearchScope, query: SearchQuery): Promise<Array<{ id: number; tid: string; words: ChannelWords[]; score: number }>> {
    const { sql, params } = this.#where(scope, query);
    const key = query.sort === 'score' ? undefined : SORT_COLUMN[query.sort];
    const order = key ? `${key} ${query.sortdir === 'asc' ? 'ASC' : 'DESC'}, t.tid ASC` : 't.tid ASC';
    const out: Array<{ id: number; tid: string; words: ChannelWords[]; score: number }> = [];
    const candidates = counted(query, () => this.#prepare(`SELECT t.id, t.tid FROM transcripts t WHERE ${sql} ORDER BY ${order}`).all(...params)) as Array<{ id: number; tid: string }>;
    for (const r of candidates) {
      await query.budget?.pace();
      const words = this.#words(r.id);
      const mine = queryWords(words, query);
      if (!speakerMatches(query, mine)) continue;
      out.push({ ...r, words, score: findHits(query.terms, mine, query.channel, query.budget).score });
    }
    if (query.sort === 'score' && query.terms) {
      const dir = query.sortdir === 'asc' ? 1 : -1;
      out.sort((a, b) => dir * (a.score - b.score) || (a.tid < b.tid ? -1 : a.tid > b.tid ? 1 : 0));
    }
    return out;
  }

  #words(id: number): ChannelWords[] {
    const row = this.#prepare('SELECT channels, times FROM words WHERE id = ?').get(id) as { channels: string; times: Buffer } | undefined;
    return row ? decodeWords(row.channels, row.times) : [];
  }

  #where(scope: AggregateScope, q: SearchQuery): { sql: string; params: unknown[] } {
    const terms = q.terms ? termsCondition(q.terms, (glob, limit) => this.#expand(glob, limit, q.budget), 't.id', q.channel) : undefined;
    // When the terms are one positive full-text match, it goes first and the scope columns get a unary +,
    // so that SQLite starts from the FTS matches instead of walking the scope index and probing FTS for
    // every transcript in scope (SEARCH-FINDINGS.md).
    const ftsFirst = terms !== undefined && terms.sql.startsWith('t.id IN (SELECT rowid FROM fts');
    const s = scopeCondition(scope, ftsFirst);
    const parts = terms ? [terms.sql, s.sql] : [s.sql];
    const params: unknown[] = terms ? [...terms.params, ...s.params] : [...s.params];
    const add = (sql: string, ...p: unknown[]) => {
      parts.push(sql);
      params.push(...p);
    };
    if (q.fromMs !== undefined) add('t.dt >= ?', q.fromMs);
    if (q.toMs !== undefined) add('t.dt <= ?', q.toMs);
    if (q.durationMin !== undefined) add('t.duration >= ?', q.durationMin);
    if (q.durationMax !== undefined) add('t.duration <= ?', q.durationMax);
    if (q.model !== undefined) add('t.model = ?', q.model);
    if (q.filename !== undefined) add('t.filename = ?', q.filename);
    if (q.requestid !== undefined) add('t.requestid = ?', q.requestid);
    for (const [field, value] of Object.entries(q.meta)) add('t.id IN (SELECT id FROM meta WHERE field = ? AND value = ?)', field, value);
    if (!q.terms && q.channel !== undefined) add('t.nchannels > ?', q.channel);
    if (q.categories) add(`t.id IN (SELECT id FROM tcat WHERE name IN (${q.categories.map(() => '?').join(', ')}))`, ...q.categories);
    if (q.sentiment !== undefined) add(`t.id IN (SELECT id FROM tsent WHERE label IN (${q.sentiment.map(() => '?').join(', ')}))`, ...q.sentiment);
    if (q.redacted) add(`t.id IN (SELECT id FROM tredact WHERE kind IN (${q.redacted.map(() => '?').join(', ')}))`, ...q.redacted);
    if (q.overtalkMin !== undefined) add('t.id IN (SELECT id FROM tmetrics WHERE overtalk >= ?)', q.overtalkMin);
    if (q.overtalkMax !== undefined) add('t.id IN (SELECT id FROM tmetrics WHERE overtalk <= ?)', q.overtalkMax);
    return { sql: parts.join(' AND '), params };
  }

  #indexAnalytics(id: number, doc: TranscriptDocument): void {
    const a = documentAnalytics(doc);
    for (const name of a.categories) this.#prepare('INSERT OR IGNORE INTO tcat (name, id) VALUES (?, ?)').run(name, id);
    for (const label of a.sentiments) this.#prepare('INSERT OR IGNORE INTO tsent (label, id) VALUES (?, ?)').run(label, id);
    for (const kind of a.redacted) this.#prepare('INSERT OR IGNORE INTO tredact (kind, id) VALUES (?, ?)').run(kind, id);
    if (a.overtalk !== undefined || a.silence !== undefined) {
      this.#prepare('INSERT OR REPLACE INTO tmetrics (id, overtalk, silence) VALUES (?, ?, ?)').run(id, a.overtalk ?? null, a.silence ?? null);
    }
  }

  #categoriesOf(id: number): string[] {
    return this.#prepare('SELECT name FROM tcat WHERE id = ? ORDER BY name').pluck().all(id) as string[];
  }

  async categoryScan(company: string, cursor: string | undefined, limit: number): Promise<CategoryScanPage> {
    // In slices of SCAN_SLICE calls, the event loop turning between them (a page is 1000 calls' words).
    const scan = this.#prepare(CATEGORY_SCAN_SQL);
    const get = this.#prepare('SELECT doc FROM docs WHERE id = ?').pluck();
    const items: CategoryScanPage['items'] = [];
    let after = cursor === undefined ? 0 : Number(cursor);
    for (;;) {
      const want = Math.min(SCAN_SLICE, limit - items.length);
      const rows = scan.all(company, after, want) as Array<{ id: number; tid: string; org: string; channels: string; times: Buffer; cats: string | null }>;
      for (const r of rows) {
        items.push({
          tid: r.tid,
          org: r.org,
          words: decodeWords(r.channels, r.times),
          categories: r.cats === null ? [] : r.cats.split('\u001f').sort(),
          document: async () => JSON.parse(inflateRawSync(get.get(r.id) as Buffer).toString('utf8')) as TranscriptDocument,
        });
      }
      if (rows.length > 0) after = rows.at(-1)!.id;
      if (rows.length < want) return { items };
      if (items.length >= limit) return { items, next: String(after) };
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  async setCategories(company: string, updates: ReadonlyArray<{ tid: string; categories: string[] }>): Promise<void> {
    const find = this.#prepare('SELECT id FROM transcripts WHERE tid = ? AND company = ?').pluck();
    const clear = this.#prepare('DELETE FROM tcat WHERE id = ?');
    const insert = this.#prepare('INSERT OR IGNORE INTO tcat (name, id) VALUES (?, ?)');
    // One transaction per SCAN_SLICE calls, the event loop turning between them. Each call's list is
    // replaced whole, so a crash between two leaves every call's list old or new, never mixed; the
    // backfill saves its cursor only after all of them (backfill.ts) and repeats the page otherwise.
    const write = this.#conn.transaction((slice: ReadonlyArray<{ tid: string; categories: string[] }>) => {
      for (const u of slice) {
        const id = find.get(u.tid, company) as number | undefined;
        if (id === undefined) continue;
        clear.run(id);
        for (const name of u.categories) insert.run(name, id);
      }
    });
    for (let i = 0; i < updates.length; i += SCAN_SLICE) {
      if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      write(updates.slice(i, i + SCAN_SLICE));
    }
  }

  async categoryCounts(company: string): Promise<Record<string, number>> {
    const rows = this.#prepare(
      'SELECT c.name, count(*) AS n FROM tcat c JOIN transcripts t ON t.id = c.id WHERE t.company = ? GROUP BY c.name ORDER BY c.name',
    ).all(company) as Array<{ name: string; n: number }>;
    return Object.fromEntries(rows.map((r) => [r.name, r.n]));
  }

  /**
   * The vocabulary lookups of the query's wildcards, one statement at a time with the event loop
   * answering between them (the SQL built next finds them cached).
   */
  async #lookUpWildcards(query: SearchQuery): Promise<void> {
    if (!query.terms) return;
    for (const [word, limit] of vocabLookups(query.terms)) {
      await query.budget?.pace();
      this.#expand(word, limit, query.budget);
    }
  }

  /** The indexed words a wildcard stands for (one SQLite statement: checked against the budget after it). */
  #expand(glob: string, limit: number, budget: CpuBudget | undefined): string[] {
    budget?.check();
    if (this.#readOnly) {
      // Another connection indexes: what a wildcard stands for may have changed since it was cached.
      const version = this.#conn.pragma('data_version', { simple: true }) as number;
      if (version !== this.#dataVersion) this.#expansions.clear();
      this.#dataVersion = version;
    }
    const key = `${limit}:${glob}`;
    let terms = this.#expansions.get(key);
    if (!terms) {
      const prefix = /^[^*?]*/.exec(glob)![0];
      terms = counted({ budget }, () => (prefix === '' ? this.#vocab!.all(glob, limit) : this.#vocabFrom!.all(prefix, `${prefix}\u{10ffff}`, glob, limit))) as string[];
      if (this.#expansions.size >= 1000) this.#expansions.clear();
      this.#expansions.set(key, terms);
    }
    return terms;
  }
}

/** Sorted by score (without a speaker or role): every match is scored in the app, so all of them are fetched. */
function scoresAll(query: SearchQuery): boolean {
  return query.sort === 'score' && query.terms !== undefined && !byPart(query);
}

const INSERT_FTS = `INSERT INTO fts (rowid, ${FTS_COLUMNS.join(', ')}) VALUES (?${', ?'.repeat(FTS_COLUMNS.length)})`;

/** The FTS row of a transcript: each channel's normalized words (c<i>) and their stems (s<i>). */
function ftsColumns(cws: ReadonlyArray<Pick<ChannelWords, 'channel' | 'norm'>>): Array<string | null> {
  const columns: Array<string | null> = FTS_COLUMNS.map(() => null);
  for (const cw of cws) {
    if (cw.channel < 0 || cw.channel >= MAX_CHANNELS) continue;
    columns[cw.channel] = cw.norm.join(' ');
    columns[MAX_CHANNELS + cw.channel] = wordStems(cw.norm).join(' ');
  }
  return columns;
}

/**
 * Schema 1 → 2: the FTS table gains the stem columns. It is contentless, so it is built anew from the
 * normalized words every transcript keeps in `words` (one transaction: a crash leaves version 1, and
 * the next open does it again).
 */
function rebuildFts(db: Database.Database): void {
  db.transaction(() => {
    db.exec('DROP TABLE IF EXISTS fts_vocab; DROP TABLE IF EXISTS fts;');
    db.exec(FTS_TABLES);
    const insert = db.prepare(INSERT_FTS);
    const page = db.prepare('SELECT id, channels FROM words WHERE id > ? ORDER BY id LIMIT 1000');
    for (let after = 0, rows = page.all(after) as Array<{ id: number; channels: string }>; rows.length > 0; rows = page.all(after) as typeof rows) {
      for (const row of rows) {
        const cws = (JSON.parse(row.channels) as Array<[number, string]>).map(([channel, joined]) => ({ channel, norm: joined === '' ? [] : joined.split(' ') }));
        insert.run(row.id, ...ftsColumns(cws));
      }
      after = rows.at(-1)!.id;
    }
  })();
}

function scopeCondition(scope: AggregateScope, noIndex = false): { sql: string; params: string[] } {
  const p = noIndex ? '+' : '';
  if (scope.org === undefined) return { sql: `${p}t.company = ?`, params: [scope.company] };
  return scope.folder === undefined
    ? { sql: `${p}t.company = ? AND ${p}t.org = ?`, params: [scope.company, scope.org] }
    : { sql: `${p}t.company = ? AND ${p}t.org = ? AND ${p}t.folder = ?`, params: [scope.company, scope.org, scope.folder] };
}

/**
 * Per-channel words for the `words` table: JSON [[channel, normalized words joined by ' ', original
 * words joined by U+001F or '' when equal to the normalized ones, and for a diarized transcript the
 * words' speakers as runs (null when only roles are known), and when roles are known the words' roles as runs]…] and the start/end times of all words as Uint32 milliseconds.
 */
function encodeWords(cws: ChannelWords[]): { channels: string; times: Buffer } {
  const total = cws.reduce((n, cw) => n + cw.starts.length, 0);
  const times = new Uint32Array(total * 2);
  let k = 0;
  for (const cw of cws) {
    for (let i = 0; i < cw.starts.length; i++) {
      times[k++] = Math.round(cw.starts[i]! * 1000);
      times[k++] = Math.round(cw.ends[i]! * 1000);
    }
  }
  const channels = cws.map((cw) => {
    const norm = cw.norm.join(' ');
    const words = cw.words.map((w) => w.replace(/\u001f/g, ' ')).join('\u001f');
    const row: unknown[] = [cw.channel, norm, words === cw.norm.join('\u001f') ? '' : words];
    if (cw.speakers || cw.roles) row.push(cw.speakers ? speakerRuns(cw.speakers) : null);
    if (cw.roles) row.push(speakerRuns(cw.roles));
    return row;
  });
  return { channels: JSON.stringify(channels), times: Buffer.from(times.buffer) };
}

function decodeWords(channels: string, blob: Buffer): ChannelWords[] {
  const times = new Uint32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));
  let k = 0;
  return (JSON.parse(channels) as Array<[number, string, string, (SpeakerRuns | null)?, SpeakerRuns?]>).map(([channel, joined, original, runs, roleRuns]) => {
    const norm = joined === '' ? [] : joined.split(' ');
    const words = original === '' ? norm : original.split('\u001f');
    const starts = new Array<number>(norm.length);
    const ends = new Array<number>(norm.length);
    for (let i = 0; i < norm.length; i++) {
      starts[i] = times[k++]! / 1000;
      ends[i] = times[k++]! / 1000;
    }
    const cw: ChannelWords = { channel, norm, words, starts, ends };
    if (runs) cw.speakers = fromSpeakerRuns(runs, norm.length);
    if (roleRuns) cw.roles = fromSpeakerRuns(roleRuns, norm.length);
    return cw;
  });
}

/**
 * One SQLite statement of a search: it cannot be interrupted, so its CPU is counted against the
 * search's budget when it returns (over it: refused then), but it is not a slice of the search's own
 * loops to cap (budget.ts: pause).
 */
function counted<T>(q: { budget?: CpuBudget }, statement: () => T): T {
  q.budget?.pause();
  const out = statement();
  q.budget?.pause();
  q.budget?.check();
  return out;
}
