/**
 * Dashboard aggregations in the embedded index (aggregate.ts): a handful of GROUP BY queries over the
 * matching calls (the search's own WHERE), each grouped by cell = (day in the requested zone, group
 * key). Every call lies in one cell, so days and groups are the cells summed one way or the other.
 */
import type Database from 'better-sqlite3';
import { addFigures, dayFromNumber, emptyFigures, finishAggregates, NEGATIVE_LABELS } from './aggregate.js';
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
  const cte = `WITH m AS MATERIALIZED (SELECT t.id, (t.dt + ?) / 86400000 AS d, ${g.sql} AS g FROM transcripts t WHERE ${where.sql})`;
  const params = [request.tzOffsetMin * 60_000, ...g.params, ...where.params];
  const cells = new Map<string, { d: number; g: string | null; f: Figures }>();
  const cell = (d: number, key: string | null) => {
    const id = `${d}\u0000${key ?? '\u0001'}`;
    let c = cells.get(id);
    if (!c) cells.set(id, (c = { d, g: key, f: emptyFigures() }));
    return c.f;
  };
  const all = <T>(sql: string) => prepare(`${cte} ${sql}`).all(...params) as T[];

  for (const r of all<{ d: number; g: string | null; n: number }>('SELECT d, g, count(*) AS n FROM m GROUP BY d, g')) cell(r.d, r.g).calls = r.n;
  const negative = NEGATIVE_LABELS.map((l) => `'${l}'`).join(', ');
  for (const r of all<{ d: number; g: string | null; n: number; neg: number }>(
    `SELECT d, g, count(*) AS n, sum(neg) AS neg FROM (SELECT m.d, m.g, max(s.label IN (${negative})) AS neg FROM m JOIN tsent s ON s.id = m.id GROUP BY m.id) GROUP BY d, g`,
  )) {
    const f = cell(r.d, r.g);
    f.sentiment.analysed = r.n;
    f.sentiment.negative = r.neg;
  }
  for (const r of all<{ d: number; g: string | null; label: string; n: number }>('SELECT m.d, m.g, s.label, count(*) AS n FROM m JOIN tsent s ON s.id = m.id GROUP BY 1, 2, 3')) {
    cell(r.d, r.g).sentiment.labels[r.label] = r.n;
  }
  for (const r of all<{ d: number; g: string | null; n: number; ot: number; otsecs: number; silsecs: number }>(
    'SELECT m.d, m.g, count(*) AS n, sum(x.overtalk > 0) AS ot, total(x.overtalk) AS otsecs, total(x.silence) AS silsecs FROM m JOIN tmetrics x ON x.id = m.id GROUP BY 1, 2',
  )) {
    Object.assign(cell(r.d, r.g).metrics, { analysed: r.n, overtalkCalls: r.ot ?? 0, overtalkSecs: r.otsecs, silenceSecs: r.silsecs });
  }
  for (const r of all<{ d: number; g: string | null; name: string; n: number }>('SELECT m.d, m.g, c.name, count(*) AS n FROM m JOIN tcat c ON c.id = m.id GROUP BY 1, 2, 3')) {
    cell(r.d, r.g).categories[r.name] = r.n;
  }

  const days = new Map<string, Figures>();
  const groups = request.by ? new Map<string | null, Figures>() : undefined;
  for (const { d, g: key, f } of cells.values()) {
    const day = dayFromNumber(d);
    days.set(day, addFigures(days.get(day) ?? emptyFigures(), f));
    if (groups) groups.set(key, addFigures(groups.get(key) ?? emptyFigures(), f));
  }
  return finishAggregates(days, groups);
}
