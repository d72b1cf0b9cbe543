/**
 * `voxdex audit verify [--company CO]` (docs/audit.md): checks every company's chain of the audit trail
 * (or one), through the installation's ports (embedded: the job store's file; distributed: PostgreSQL),
 * and exits 1 naming the first entry that does not chain. What the admin commands change is written
 * to the trail too, as `cli:<user>`.
 */
import os from 'node:os';
import { verifyChain, type AuditEvent } from '../audit/chain.js';
import type { Config } from '../config.js';
import { silentLogger } from '../log.js';
import { openPorts, type Ports } from '../ports/ports.js';
import { checkShortName } from '../tenancy/tenancy.js';
import type { CommandSpec } from './args.js';

export const AUDIT_COMMANDS = {
  'audit verify': {
    usage: 'voxdex audit verify [--company CO_SHORT]',
    about: `Checks the audit trail: each company's entries numbered from 1 without a gap, each entry's hash its own
content's and chained to the entry before. Prints each chain's length and newest hash (keep it: an entry removed
from the end is seen only against a newest hash noted before); exits 1 naming the first entry that does not chain.`,
    options: [['--company CO_SHORT', 'only this company\'s chain ("-" for the installation\'s own: refused tokens)']],
    positional: [0, 0],
    valued: ['company'],
  },
} satisfies Record<string, CommandSpec>;

/** The installation's ports, for one admin command. */
function open(config: Readonly<Config>, what: string): Promise<Ports> {
  return openPorts(config, { node: `${what}:${process.pid}`, log: silentLogger });
}

/** Who an admin command acts as in the trail. */
export function cliWho(): string {
  return `cli:${os.userInfo().username}`;
}

/** Writes one admin command's change to the trail. */
export async function auditCli(config: Readonly<Config>, event: Omit<AuditEvent, 'who' | 'ip'>): Promise<void> {
  const o = await open(config, 'audit');
  try {
    await o.audit.append({ ...event, who: cliWho(), ip: '' });
  } finally {
    await o.close();
  }
}

export async function runAuditVerify(config: Readonly<Config>, opts: Record<string, string[]>, out: (line: string) => void): Promise<number> {
  const asked = opts.company?.at(-1);
  const o = await open(config, 'audit');
  try {
    const companies = asked === undefined ? await o.audit.companies() : [asked === '-' ? '' : checkShortName('company', asked)];
    let broken = 0;
    for (const company of companies) {
      const entries = await o.audit.list(company);
      const check = verifyChain(entries);
      const name = company === '' ? '(installation)' : company;
      if (check.ok) out(`${name}: ${check.entries} entries, chain intact${entries.length ? `; newest ${entries.at(-1)!.seq} ${entries.at(-1)!.hash}` : ''}`);
      else {
        broken++;
        out(`${name}: BROKEN at entry ${check.seq}: ${check.why}`);
      }
    }
    if (companies.length === 0) out('the audit trail is empty');
    return broken > 0 ? 1 : 0;
  } finally {
    await o.close();
  }
}
