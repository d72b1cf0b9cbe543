/**
 * Categories (docs/analytics.md, "Categories"):
 *
 *   PUT    /categories/{CO}/{NAME}   body JSON {"terms", "org"?, "channel"?, "speaker"?} (or the same as
 *                                    form fields / query parameters): create or replace; the backfill
 *                                    over the indexed calls starts in the background
 *   GET    /categories/{CO}/{NAME}   the rule, its number of calls and its backfill progress
 *   DELETE /categories/{CO}/{NAME}   remove (its name is taken off the calls in the background)
 *   GET    /categories/{CO}          every category of the company, each with its number of calls
 *
 * Token from the query string, a form field or `Authorization: Bearer`; the company's token or root
 * (src/http/auth.ts). The token is checked first (401, 403, and 404 for a company that does not
 * exist: the root token may name any), then the names and the rule: a rule with a syntax error is the
 * search's 400 BAD_QUERY naming the position.
 */
import { voxdexError } from '../errors.js';
import { checkCategoryName, MAX_CATEGORIES_PER_COMPANY, parseCategoryRule } from '../analytics/categories.js';
import type { TranscriptIndex } from '../search/transcript-index.js';
import type { CategoryRecord, CategoryStore } from '../store/category-store.js';
import { checkShortName } from '../tenancy/tenancy.js';
import type { Access } from './auth.js';
import { requestToken } from './bearer.js';
import { checkParamNames, queryParams, readFields } from './upload-form.js';
import { type Req, sendJson, type RouteTable } from './server.js';

export interface CategoryRouteDeps {
  access: Access;
  store: CategoryStore;
  index: Pick<TranscriptIndex, 'categoryCounts'>;
  /** Called after a put or delete: starts the backfill now. */
  onChange: () => void;
}

/** A category as the API shows it. */
export interface CategoryView {
  name: string;
  terms: string;
  org?: string;
  channel?: number;
  speaker?: string;
  role?: 'agent' | 'customer';
  updated: string;
  version: number;
  /** Calls of the company in this category now (grows while the backfill runs). */
  calls: number;
  backfill: { state: CategoryRecord['backfill']['state']; done: number };
}

const MAX_BODY = 64 * 1024;
const RULE_FIELDS = ['terms', 'org', 'channel', 'speaker', 'role'];

export function categoryView(c: CategoryRecord, calls: number): CategoryView {
  return {
    name: c.name,
    terms: c.terms,
    ...(c.org !== undefined ? { org: c.org } : {}),
    ...(c.channel !== undefined ? { channel: c.channel } : {}),
    ...(c.speaker !== undefined ? { speaker: c.speaker } : {}),
    ...(c.role !== undefined ? { role: c.role } : {}),
    updated: c.updated,
    version: c.version,
    calls,
    backfill: { state: c.backfill.state, done: c.backfill.done },
  };
}

function segment(raw: string | undefined): string {
  try {
    return decodeURIComponent(raw ?? '');
  } catch {
    return raw ?? '';
  }
}

async function readJson(req: Req): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > MAX_BODY) throw voxdexError('TOO_LARGE', `The category body is larger than ${MAX_BODY} bytes; a rule has at most 2000 characters.`);
    chunks.push(c);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw voxdexError('BAD_ARGUMENT', 'The body is not valid JSON; send {"terms": "...", "org"?: "ORG", "channel"?: 0, "speaker"?: "S1"}.');
  }
}

/**
 * The token and the rule of a PUT: a JSON body (read only once the token in the query string or
 * header is checked), or form fields / query parameters (read first: the token may be among them).
 */
async function readPut(req: Req): Promise<{ token: string | undefined; body: () => Promise<unknown>; form?: boolean }> {
  const type = String(req.headers['content-type'] ?? '').toLowerCase();
  if (type.startsWith('application/json')) {
    const params = queryParams(req);
    checkParamNames(Object.keys(params), ['token'], []);
    return { token: requestToken(req, params.token), body: () => readJson(req) };
  }
  const fields = await readFields(req, ['token', ...RULE_FIELDS]);
  const body: Record<string, string> = {};
  for (const f of RULE_FIELDS) if (fields[f] !== undefined) body[f] = fields[f]!;
  return { token: requestToken(req, fields.token), body: async () => body, form: true };
}

export function mountCategoryRoutes(routes: RouteTable, d: CategoryRouteDeps): void {
  const company = (req: Req) => checkShortName('company', segment(req.params.company));

  routes.add('GET', '/categories/:company', async (req, res) => {
    const params = await readFields(req, ['token']);
    let co = '';
    await d.access.check(requestToken(req, params.token), () => ({ company: (co = company(req)) }));
    const [list, counts] = await Promise.all([d.store.list(co), d.index.categoryCounts(co)]);
    sendJson(res, 200, { company: co, categories: list.map((c) => categoryView(c, counts[c.name] ?? 0)) });
  });

  routes.add('GET', '/categories/:company/:name', async (req, res) => {
    const params = await readFields(req, ['token']);
    let co = '';
    await d.access.check(requestToken(req, params.token), () => ({ company: (co = company(req)) }));
    const name = checkCategoryName(segment(req.params.name));
    const c = await d.store.get(co, name);
    if (!c) throw voxdexError('NOT_FOUND', `Company ${co} has no category ${JSON.stringify(name)}; GET /categories/${co} lists them.`);
    const counts = await d.index.categoryCounts(co);
    sendJson(res, 200, categoryView(c, counts[name] ?? 0));
  });

  routes.add('PUT', '/categories/:company/:name', async (req, res) => {
    const { token, body, form } = await readPut(req);
    // Who asks first (401; 403; 404 for a company that does not exist), then what the path and the rule say (400) and its org (404).
    let co = '';
    const principal = await d.access.check(token, () => ({ company: (co = company(req)) }));
    const name = checkCategoryName(segment(req.params.name));
    const rule = parseCategoryRule(await body(), { form });
    if (rule.org) await d.access.check(principal, () => ({ company: co, org: rule.org }));
    const existing = await d.store.get(co, name);
    if (!existing && (await d.store.list(co)).length >= MAX_CATEGORIES_PER_COMPANY) {
      throw voxdexError('BAD_ARGUMENT', `Company ${co} has ${MAX_CATEGORIES_PER_COMPANY} categories, the most it may have; remove one first.`);
    }
    await d.access.record(req, principal, { company: co, action: 'category.put', target: name, detail: { ...rule } });
    const saved = await d.store.put(co, name, rule);
    d.onChange();
    sendJson(res, existing ? 200 : 201, categoryView(saved, 0));
  });

  routes.add('DELETE', '/categories/:company/:name', async (req, res) => {
    const params = await readFields(req, ['token']);
    let co = '';
    const principal = await d.access.check(requestToken(req, params.token), () => ({ company: (co = company(req)) }));
    const name = checkCategoryName(segment(req.params.name));
    if (!(await d.store.get(co, name))) throw voxdexError('NOT_FOUND', `Company ${co} has no category ${JSON.stringify(name)}.`);
    await d.access.record(req, principal, { company: co, action: 'category.remove', target: name });
    if (!(await d.store.remove(co, name))) throw voxdexError('NOT_FOUND', `Company ${co} has no category ${JSON.stringify(name)}.`);
    d.onChange();
    sendJson(res, 200, { company: co, name, deleted: true });
  });
}
