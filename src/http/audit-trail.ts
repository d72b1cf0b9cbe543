/**
 * Writing the audit trail from the HTTP edge (docs/audit.md): who acted (the root token, or a company
 * token as `token:<first 8 hex of its hash>`), from which address, on what; the entry is written before
 * the answer is sent, so nothing is served that the trail does not hold. What a caller typed (search
 * terms, file names) is redacted under the company's policy, as everything the client sends is.
 */
import { createHash, createHmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { AuditAction } from '../audit/chain.js';
import { clientTextUnderPolicy } from '../redact/client-policy.js';
import type { AuditLog } from '../store/audit-log.js';
import type { Principal, Tenancy } from '../tenancy/tenancy.js';

/** What a route tells the trail. */
export interface Audited {
  company: string;
  action: AuditAction;
  target: string;
  detail?: Record<string, unknown>;
  /**
   * What the caller typed that may hold a call's words (search terms and filters): never stored
   * readable — the entry keeps the option names and a keyed digest of their values (queryDigest).
   */
  typed?: Record<string, string>;
}

export interface AuditTrail {
  /** Appends the entry for `who` (whoOf) with its detail redacted under the company's policy; resolves once it is stored. */
  record(req: IncomingMessage, who: string, what: Audited): Promise<void>;
  /** A token nobody holds was presented: the installation's chain (company ""). */
  refused(req: IncomingMessage): Promise<void>;
}

/** No trail (unit tests of a route alone). */
export const NO_AUDIT: AuditTrail = { record: async () => undefined, refused: async () => undefined };

const WHO = new WeakMap<Principal, string>();

/** Remembers who holds `principal` (called where the token is authenticated). */
export function rememberWho(principal: Principal, token: string): Principal {
  WHO.set(principal, principal.kind === 'root' ? 'root' : `token:${createHash('sha256').update(token).digest('hex').slice(0, 8)}`);
  return principal;
}

/** `root`, `token:<8 hex>` (docs/audit.md). */
export function whoOf(principal: Principal): string {
  return WHO.get(principal) ?? (principal.kind === 'root' ? 'root' : `company:${principal.company}`);
}

/** The client's address as the socket sees it (a proxy's forwarded header is not trusted). */
function addressOf(req: IncomingMessage): string {
  return req.socket?.remoteAddress ?? '';
}

/** Long strings are cut in the trail (a search's terms may be 64 KiB). */
const MAX_DETAIL_CHARS = 1000;
const cut = (v: unknown): unknown => (typeof v === 'string' && v.length > MAX_DETAIL_CHARS ? `${v.slice(0, MAX_DETAIL_CHARS)}…` : v);

/**
 * The keyed digest (HMAC-SHA256 with the installation's link key, hex) of typed values, as the trail
 * stores them: whoever holds the key can tell whether a given search was made; the trail's reader
 * cannot read it back. The values' JSON with sorted names.
 */
export function queryDigest(key: string, typed: Record<string, string>): string {
  const sorted = Object.fromEntries(Object.entries(typed).sort(([a], [b]) => (a < b ? -1 : 1)));
  return createHmac('sha256', key).update(JSON.stringify(sorted)).digest('hex');
}

export function auditTrail(log: AuditLog, tenancy: Pick<Tenancy, 'hasCompany' | 'companySettings'>, digestKey: string): AuditTrail {
  return {
    async record(req, who, what) {
      const settings = tenancy.hasCompany(what.company) ? tenancy.companySettings(what.company) : {};
      const redact = clientTextUnderPolicy(settings);
      const detail = Object.fromEntries(Object.entries(what.detail ?? {}).filter(([, v]) => v !== undefined).map(([k, v]) => [k, cut(v)]));
      if (what.typed) Object.assign(detail, { typed: Object.keys(what.typed).sort(), digest: queryDigest(digestKey, what.typed) });
      await log.append({
        company: what.company,
        who,
        action: what.action,
        target: redact.text(what.target),
        detail: redact.metadata(detail),
        ip: addressOf(req),
      });
    },
    async refused(req) {
      await log.append({ company: '', who: 'unknown', action: 'token.refused', target: '', detail: { method: req.method, path: (req.url ?? '').split('?')[0] }, ip: addressOf(req) });
    },
  };
}
