/**
 * Dashboard aggregations in the embedded index (aggregate.ts): a handful of GROUP BY queries over the
 * matching calls (the search's own WHERE), each grouped by cell = (day in the requested zone, group
 * key). Every call lies in one cell, so each cell's row is added into its day's and its group's figures.
 */
import type Database from 'better-sqlite3';
import { dayFromNumber, emptyFigures, finishAggregates, NEGATIVE_LABELS } from './aggregate.js';
import type { AggregateRequest, Aggregates, Figures, GroupBy } from './transcript-index.js';

type Prepare = (sql: string) => Database.Statement;

function groupExpression(by: GroupBy | undefined): { sql: string; params: unknown[] } {
  if (!by) return { sql: 'NULL', params: [] };
  if (by.kind === 'org') return { sql: 't.org', params: [] };
  if (by.kind === 'folder') return { sql: "t.org || '/' || t.folder", params: [] };
  return { sql: '(SELECT value FROM meta x WHERE x.id = t.id AND x.field = ?)', params: [by.field] };
}

/** Runs the aggregation over `where` (a condition on `transcripts t` with its parameters). */
export function sqliteAggregate(prepare: Prepare, where: { sql: string; params: unknown[] }, request: AggregateRequest): Aggregates {
  const g = groupExpression(request.by);
  // The matching calls with their cell (the day number: a bound JS number is a REAL, hence the CAST), computed once into a temporary table of this connection
  // (better-sqlite3 is synchronous: no other statement runs in between), then grouped five ways.
  prepare('CREATE TEMP TABLE IF NOT EXISTS agg_m (id INTEGER PRIMARY KEY, d INTEGER NOT NULL, g TEXT)').run();
  prepare('DELETE FROM temp.agg_m').run();
  prepare(`INSERT INTO temp.agg_m (id, d, g) SELECT t.id, CAST((t.dt + ?) / 86400000 AS INTEGER), ${g.sql} FROM transcripts t WHERE ${where.sql}`)
    .run(request.tzOffsetMin * 60_000, ...g.params, ...where.params);
  // Each row of a cell (day, group) is added straight into its day's and its group's figures.
  const days = new Map<number, Figures>();
  const groups = request.by ? new Map<string | null, Figures>() : undefined;
  const into = (d: number, key: string | null, add: (f: Figures) => void) => {
    let day = days.get(d);
    if (!day) days.set(d, (day = emptyFigures()));
    add(day);
    if (!groups) return;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = emptyFigures()));
    add(group);
  };
  const all = <T>(sql: string) => prepare(sql).all() as T[];

  for (const r of all<{ d: number; g: string | null; n: number }>('SELECT m.d, m.g, count(*) AS n FROM temp.agg_m m GROUP BY m.d, m.g')) into(r.d, r.g, (f) => (f.calls += r.n));
  const negative = NEGATIVE_LABELS.map((l) => `'${l}'`).join(', ');
  for (const r of all<{ d: number; g: string | null; n: number; neg: number }>(
    `SELECT d, g, count(*) AS n, sum(neg) AS neg FROM (SELECT m.d AS d, m.g AS g, max(s.label IN (${negative})) AS neg FROM temp.agg_m m JOIN tsent s ON s.id = m.id GROUP BY m.id) GROUP BY d, g`,
  )) {
    into(r.d, r.g, (f) => {
      f.sentiment.analysed += r.n;
      f.sentiment.negative += r.neg;
    });
  }
  for (const r of all<{ d: number; g: string | null; label: string; n: number }>('SELECT m.d, m.g, s.label, count(*) AS n FROM temp.agg_m m JOIN tsent s ON s.id = m.id GROUP BY 1, 2, 3')) {
    into(r.d, r.g, (f) => (f.sentiment.labels[r.label] = (f.sentiment.labels[r.label] ?? 0) + r.n));
  }
  for (const r of all<{ d: number; g: string | null; n: number; ot: number | null; otsecs: number; silsecs: number }>(
    'SELECT m.d, m.g, count(*) AS n, sum(x.overtalk > 0) AS ot, total(x.overtalk) AS otsecs, total(x.silence) AS silsecs FROM temp.agg_m m JOIN tmetrics x ON x.id = m.id GROUP BY 1, 2',
  )) {
    into(r.d, r.g, (f) => {
      f.metrics.analysed += r.n;
      f.metrics.overtalkCalls += r.ot ?? 0;
      f.metrics.overtalkSecs += r.otsecs;
      f.metrics.silenceSecs += r.silsecs;
    });
  }
  for (const r of all<{ d: number; g: string | null; name: string; n: number }>('SELECT m.d, m.g, c.name, count(*) AS n FROM temp.agg_m m JOIN tcat c ON c.id = m.id GROUP BY 1, 2, 3')) {
    into(r.d, r.g, (f) => (f.categories[r.name] = (f.categories[r.name] ?? 0) + r.n));
  }
  const byDay = new Map([...days].map(([d, f]) => [dayFromNumber(d), f]));
  prepare('DELETE FROM temp.agg_m').run();
  return finishAggregates(byDay, groups);
}
