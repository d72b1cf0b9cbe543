/**
 * Reading the audit trail (docs/audit.md):
 *
 *   GET /audit/{CO}?from&to&who&action&target&after&limit&output=jsonl|csv → the company's entries in
 *       seq order, one JSON object a line (application/x-ndjson) or CSV; `/audit/-` is the
 *       installation's own chain (refused tokens), root token only.
 *
 * The root token, or the company's token, may read it (the permission `audit` once people have
 * accounts). Reading is itself an entry (`audit.read`).
 */
import { AUDIT_ACTIONS, type AuditEntry } from '../audit/chain.js';
import { voxdexError } from '../errors.js';
import { invalidParameter, parseInteger } from '../is.js';
import { csvField } from '../search/render.js';
import type { AuditFilter, AuditLog } from '../store/audit-log.js';
import type { Access } from './auth.js';
import { requestToken } from './bearer.js';
import { sendText, type RouteTable } from './server.js';
import { readFields } from './upload-form.js';

export interface AuditRouteDeps {
  access: Access;
  log: AuditLog;
}

const PARAMS = ['token', 'from', 'to', 'who', 'action', 'target', 'after', 'limit', 'output'];
const COLUMNS = ['seq', 'at', 'who', 'action', 'target', 'detail', 'ip', 'prev', 'hash'] as const;
/** The most entries one answer holds; page on with `after` (the last seq received). */
export const MAX_AUDIT_PAGE = 10_000;

function isoParam(name: string, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const t = Date.parse(raw);
  if (!/^\d{4}-\d{2}-\d{2}/.test(raw) || Number.isNaN(t)) throw invalidParameter(name, 'an ISO 8601 date or time, e.g. 2026-11-28 or 2026-11-28T09:00:00Z', raw);
  return new Date(t).toISOString();
}

/** The filter of a request's parameters (400 naming a bad one). */
export function auditFilter(p: Record<string, string | undefined>): AuditFilter {
  if (p.action !== undefined && !(AUDIT_ACTIONS as readonly string[]).includes(p.action)) throw invalidParameter('action', `one of ${AUDIT_ACTIONS.join(', ')}`, p.action);
  return {
    from: isoParam('from', p.from),
    to: isoParam('to', p.to),
    who: p.who,
    action: p.action as AuditFilter['action'],
    target: p.target,
    after: p.after === undefined ? undefined : parseInteger('after', p.after, 0, Number.MAX_SAFE_INTEGER),
    limit: p.limit === undefined ? MAX_AUDIT_PAGE : parseInteger('limit', p.limit, 1, MAX_AUDIT_PAGE),
  };
}

export function renderAuditCsv(entries: readonly AuditEntry[]): string {
  return [COLUMNS.join(','), ...entries.map((e) => COLUMNS.map((c) => csvField(e[c])).join(','))].join('\r\n') + '\r\n';
}

export function mountAuditRoutes(routes: RouteTable, d: AuditRouteDeps): void {
  routes.add('GET', '/audit/:company', async (req, res) => {
    const p = await readFields(req, PARAMS);
    const own = req.params.company === '-';
    const principal = own ? d.access.authenticate(requestToken(req, p.token)) : await d.access.check(requestToken(req, p.token), () => ({ company: req.params.company! }));
    if (own && principal.kind !== 'root') throw voxdexError('FORBIDDEN', 'Only the root token may read the installation\'s own audit trail (/audit/-)');
    const output = p.output ?? 'jsonl';
    if (output !== 'jsonl' && output !== 'csv') throw invalidParameter('output', 'jsonl or csv', output);
    const filter = auditFilter(p);
    const company = own ? '' : req.params.company!;
    await d.access.record(req, principal, { company, action: 'audit.read', target: company, detail: { ...filter, output } });
    const entries = await d.log.list(company, filter);
    if (output === 'csv') return sendText(res, 200, renderAuditCsv(entries), 'text/csv; charset=utf-8');
    sendText(res, 200, entries.map((e) => JSON.stringify(e)).join('\n') + (entries.length ? '\n' : ''), 'application/x-ndjson; charset=utf-8');
  });
}
