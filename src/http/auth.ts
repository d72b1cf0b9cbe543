/**
 * The one auth edge of the HTTP API: authenticate the token once, find what the request acts on,
 * authorize the principal for that company, check the scope (org, folder) exists, and return the
 * principal. /transcribe and /search both come through here.
 */
import type { IncomingMessage } from 'node:http';
import { voxdexError } from '../errors.js';
import type { Principal, Tenancy } from '../tenancy/tenancy.js';
import { NO_AUDIT, rememberWho, whoOf, type Audited, type AuditTrail } from './audit-trail.js';

/** What a request acts on: a company, and where given an org (and folder) that must exist. */
export interface Target {
  company: string;
  org?: string;
  folder?: string;
}

export interface Access {
  /** Who holds `token`: BAD_TOKEN (401) when nobody does. */
  authenticate(token: string | undefined): Principal;
  /**
   * `who` (a token, or a principal authenticated earlier in the same request) → principal; then
   * `target(principal)` (may throw its own 400/404), authorize (FORBIDDEN, 403), the company exists
   * (NOT_FOUND: the root token may name any company), scope (BAD_NAME, NOT_FOUND). Resolves to the principal.
   */
  check(who: string | undefined | Principal, target: (principal: Principal) => Target | Promise<Target>): Promise<Principal>;
  /** Writes what the principal did to the audit trail (docs/audit.md) before the answer goes out. */
  record(req: IncomingMessage, principal: Principal, what: Audited): Promise<void>;
}

export function tenancyAccess(tenancy: Pick<Tenancy, 'authenticate' | 'authorize' | 'requireScope' | 'hasCompany'>, trail: AuditTrail = NO_AUDIT): Access {
  const authenticate = (token: string | undefined) => rememberWho(tenancy.authenticate(token), token ?? '');
  return {
    authenticate,
    record: (req, principal, what) => trail.record(req, whoOf(principal), what),
    async check(who, target) {
      const principal = typeof who === 'object' ? who : authenticate(who);
      const t = await target(principal);
      tenancy.authorize(principal, t.company);
      if (!tenancy.hasCompany(t.company)) throw voxdexError('NOT_FOUND', `Company ${t.company} does not exist; voxdex company list shows those that do`);
      if (t.org !== undefined) tenancy.requireScope(t.company, t.org, t.folder);
      return principal;
    },
  };
}
