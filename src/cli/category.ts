/**
 * `voxdex category add|list|remove` (docs/analytics.md, "Categories"): the same store and validation as
 * PUT|GET|DELETE /categories, through the installation's ports (embedded: the tenancy file; distributed:
 * PostgreSQL); a running node starts the backfill within 2 s (a stopped one when it starts).
 */
import type { Config } from '../config.js';
import { voxdexError } from '../errors.js';
import { checkCategoryName, MAX_CATEGORIES_PER_COMPANY, parseCategoryRule } from '../analytics/categories.js';
import { silentLogger } from '../log.js';
import { openPorts, type Ports } from '../ports/ports.js';
import { checkShortName } from '../tenancy/tenancy.js';
import type { CommandSpec } from './args.js';
import { cliWho } from './audit.js';

export const CATEGORY_COMMANDS = {
  'category add': {
    usage: 'voxdex category add CO_SHORT NAME TERMS [--org ORG] [--channel N] [--speaker LABEL] [--role agent|customer]',
    about: `Creates or replaces the company's category NAME: calls that the search TERMS finds (the terms language of
docs/search.md), optionally only in one organization, on one channel or said by one speaker. Calls already
indexed are scored in the background by the running service (GET /categories/CO/NAME shows the progress).
TERMS may start with a NOT as it is (voxdex category add acme no-thanks '-"thank you"'); quote it as one argument.`,
    options: [
      ['--org ORG', 'only calls of this organization'],
      ['--channel N', 'the terms must match on this channel (0-255)'],
      ['--speaker LABEL', "the terms must match in this speaker's utterances (S1, C0, ...)"],
      ['--role agent|customer', "the terms must match in the agent's (or the customer's) words; -\"X\" with --role agent: the agent did not say X"],
    ],
    positional: [3, 3],
    valued: ['org', 'channel', 'speaker', 'role'],
    dashPositional: true,
  },
  'category list': {
    usage: 'voxdex category list CO_SHORT',
    about: 'One line per category: name, calls, backfill state and progress, limits (org=, channel=, speaker=, role=), terms; tab-separated.',
    positional: [1, 1],
  },
  'category remove': {
    usage: 'voxdex category remove CO_SHORT NAME',
    about: "Removes the category; the running service takes its name off the calls in the background.",
    positional: [2, 2],
  },
} satisfies Record<string, CommandSpec>;

export type CategoryCommand = keyof typeof CATEGORY_COMMANDS;

/** The installation's ports (either mode), for one admin command. */
function open(config: Readonly<Config>): Promise<Ports> {
  return openPorts(config, { node: `category:${process.pid}`, log: silentLogger });
}

export async function runCategoryCommand(
  config: Readonly<Config>,
  name: CategoryCommand,
  p: string[],
  opts: Record<string, string[]>,
  out: (line: string) => void,
): Promise<number> {
  const company = checkShortName('company', p[0]);
  const o = await open(config);
  try {
    if (!o.tenancy.hasCompany(company)) throw voxdexError('NOT_FOUND', `No company ${company}; voxdex company list shows them.`);
    if (name === 'category add') {
      const cat = checkCategoryName(p[1]);
      const body: Record<string, string> = { terms: p[2]! };
      for (const k of ['org', 'channel', 'speaker', 'role']) if (opts[k]) body[k] = opts[k]!.at(-1)!;
      const rule = parseCategoryRule(body, { form: true });
      if (rule.org && !o.tenancy.listOrgs(company).includes(rule.org)) throw voxdexError('NOT_FOUND', `Company ${company} has no organization ${rule.org}.`);
      const existing = await o.categories.get(company, cat);
      if (!existing && (await o.categories.list(company)).length >= MAX_CATEGORIES_PER_COMPANY) {
        throw voxdexError('BAD_ARGUMENT', `Company ${company} has ${MAX_CATEGORIES_PER_COMPANY} categories, the most it may have; remove one first.`);
      }
      await o.audit.append({ company, who: cliWho(), ip: '', action: 'category.put', target: cat, detail: { ...rule } });
      const saved = await o.categories.put(company, cat, rule);
      out(`${existing ? 'replaced' : 'created'} category ${company}/${cat} (version ${saved.version}); the calls already indexed are scored in the background`);
    } else if (name === 'category list') {
      await o.index.init();
      const n = await o.index.categoryCounts(company);
      for (const c of await o.categories.list(company)) {
        const limits = [c.org && `org=${c.org}`, c.channel !== undefined && `channel=${c.channel}`, c.speaker && `speaker=${c.speaker}`, c.role && `role=${c.role}`].filter(Boolean).join(',');
        out([c.name, String(n[c.name] ?? 0), `${c.backfill.state}:${c.backfill.done}`, limits || '-', c.terms].join('\t'));
      }
    } else {
      const cat = checkCategoryName(p[1]);
      if (await o.categories.get(company, cat)) await o.audit.append({ company, who: cliWho(), ip: '', action: 'category.remove', target: cat, detail: {} });
      if (!(await o.categories.remove(company, cat))) throw voxdexError('NOT_FOUND', `Company ${company} has no category ${cat}.`);
      out(`removed category ${company}/${cat}; its name is taken off the calls in the background`);
    }
    return 0;
  } finally {
    await o.close();
  }
}
