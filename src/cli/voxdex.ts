/**
 * The `voxdex` command (docs/service.md, "Running it"):
 *   voxdex serve [--role all|api|worker]
 *   voxdex company add CO --org ORG --folder FOLDER [--model NAME]... [--show-secret]
 *   voxdex company list
 *   voxdex company alias CO ALIAS MODEL
 *   voxdex company set CO [--scrub text,audio|none] [--redact KINDS] [--diarize on|off] [--gender on|off] [--sentiment on|off] [--numtrans on|off] [--agent-channel N|none] [--agent-phrases LIST|none]
 *   voxdex vocab add|list|remove CO PHRASE...
 *   voxdex category add|list|remove CO …
 *   voxdex org add CO ORG
 *   voxdex folder add CO ORG FOLDER
 *   voxdex company secret CO [--rotate]
 *   voxdex callback resend REQUESTID
 *   voxdex token rotate CO
 *   voxdex models
 *   voxdex import DIR --to CO/ORG/FOLDER [request options]
 *   voxdex transcribe FILE... [--model NAME] [--output FORMAT] [--channels LIST] [request options]
 * Admin commands work while the service runs (same data dir; SQLite WAL).
 */
import path from 'node:path';
import { AudioSeal } from '../audio/sealed-file.js';
import { loadModelRegistry } from '../asr/models.js';
import { loadConfig, type Config } from '../config.js';
import { toVoxdexError, voxdexError } from '../errors.js';
import { JobIntake } from '../jobs/job-intake.js';
import { COMPANY_DEFAULTS } from '../jobs/option-table.js';
import { resolveRequestOptions, type RequestOptionValues } from '../jobs/request-options.js';
import { createLogger, silentLogger } from '../log.js';
import { openPorts, openTenancy } from '../ports/ports.js';
import { createService, serviceSubmitter } from '../service.js';
import { JobPaths } from '../store/paths.js';
import type { TenancyAdmin } from '../tenancy/tenancy.js';
import {
  describeCompanySettings, parseAgentChannel, parseKindList, parseOnOff, parsePhraseList, SCRUB_TARGETS, VOCAB_MAX_CHARS, VOCAB_MAX_PHRASES,
} from '../tenancy/company-settings.js';
import type { CompanySettings } from '../types.js';
import { companyKinds } from '../redact/client-policy.js';
import { applyKinds, describeKinds, effectiveKinds, KINDS_HELP, NO_CHOICE, parseKinds } from '../redact/kinds.js';
import { parseImportArgs, runImport } from './import.js';
import { helpText, parseArgs, usageError, type CommandSpec } from './args.js';
import { OPTION_BOOLEANS, OPTION_HELP, OPTION_VALUED, optionFields } from './option-flags.js';
import { checkInputFiles } from './input-files.js';
import { runTranscribe, transcribeCommand } from './transcribe-command.js';
import { AUDIT_COMMANDS, auditCli, runAuditVerify } from './audit.js';
import { CATEGORY_COMMANDS, runCategoryCommand } from './category.js';
import { redactStored } from '../pipeline/redact-stored.js';
import { resendCallbacks } from '../callbacks/resend.js';
import { isUuid } from '../is.js';

const ENVIRONMENT = `Environment: VOXDEX_PORT, VOXDEX_HOST, VOXDEX_DATA_DIR, VOXDEX_DROP_DIR, VOXDEX_ES_URL; several nodes:
  VOXDEX_DATABASE_URL, VOXDEX_S3_URL, VOXDEX_S3_BUCKET, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, VOXDEX_SECRETS_KEY_FILE (see docs/service.md).`;

/** Every command: its arguments and its help. Keys are the command words. */
const COMMANDS = {
  serve: {
    usage: 'voxdex serve [--role all|api|worker]',
    about: `Starts the HTTP service on VOXDEX_HOST:VOXDEX_PORT (default 127.0.0.1:8017) with its data in VOXDEX_DATA_DIR
(default ./data). Prints the root token file's path and the URL on stderr; SIGTERM or SIGINT stop it gracefully.
One server per data dir: a second one refuses to start. ${ENVIRONMENT}`,
    options: [['--role ROLE', 'all (default), api (HTTP only) or worker (ASR and callbacks); api and worker need VOXDEX_DATABASE_URL']],
    positional: [0, 0],
    valued: ['role'],
  },
  'company add': {
    usage: 'voxdex company add CO_SHORT --org ORG_SHORT --folder FOLDERNAME [--model NAME]... [--show-secret]',
    about: `Creates the company, org and folder where missing, makes ORG/FOLDER the company's default destination and
prints a new company token on stdout (earlier tokens stay valid).`,
    options: [
      ['--org ORG_SHORT', 'default organization (created when missing)'],
      ['--folder FOLDERNAME', 'default folder (created when missing)'],
      ['--model NAME', 'an authorized installed model, repeatable; the first is the default (none: every installed model, also on a re-run)'],
      ['--show-secret', "also print the company's callback signing secret on a second line"],
    ],
    positional: [1, 1],
    valued: ['org', 'folder', 'model'],
    flags: ['show-secret'],
  },
  'company list': {
    usage: 'voxdex company list',
    about: 'One line per company: name, default destination, authorized models (* = all), model aliases, settings; tab-separated.',
    positional: [0, 0],
  },
  'company alias': {
    usage: 'voxdex company alias CO_SHORT ALIAS MODEL',
    about: "Maps a client's model name (e.g. eng1:callcenter) to an installed model for this company.",
    positional: [3, 3],
  },
  'company set': {
    usage: 'voxdex company set CO_SHORT [--scrub text,audio|none] [--redact KINDS] [--diarize on|off] [--gender on|off] [--sentiment on|off] [--numtrans on|off] [--agent-channel N|none] [--agent-phrases LIST|none]',
    about: `Sets the company's redaction policy and its defaults for the request options; prints the settings.
A scrub policy applies to every request of the company (a request may not turn it off); the other
settings are defaults a request may override.`,
    options: [
      ['--scrub text,audio|none', 'redact transcripts (text), stored recordings (audio), both, or none (no policy)'],
      ['--redact KINDS', `${KINDS_HELP}; none: back to the default kinds; printed as they apply (redact=card,ssn,digits,name,-cvv,-expiry)`],
      ['--diarize on|off', 'split mono recordings by speaker'],
      ['--gender on|off', 'label utterances with the speaker\'s gender'],
      ['--sentiment on|off', 'sentiment per utterance and per channel'],
      ['--numtrans on|off', 'numbers written as numerals (default on)'],
      ['--agent-channel N|none', 'the channel agents are recorded on: metadata.role agent/customer on calls with several channels'],
      ['--agent-phrases LIST|none', "comma-separated phrases of the agents' script, to recognise the agent from what is said"],
    ],
    positional: [1, 1],
    valued: ['scrub', 'redact', 'diarize', 'gender', 'sentiment', 'numtrans', 'agent-channel', 'agent-phrases'],
  },
  'vocab add': {
    usage: 'voxdex vocab add CO_SHORT PHRASE...',
    about: `Adds words or phrases recognition favours for every request of the company (at most ${VOCAB_MAX_PHRASES} phrases of ${VOCAB_MAX_CHARS} characters).`,
    positional: [2, Infinity],
  },
  'vocab list': {
    usage: 'voxdex vocab list CO_SHORT',
    about: "The company's vocabulary, one phrase per line.",
    positional: [1, 1],
  },
  'vocab remove': {
    usage: 'voxdex vocab remove CO_SHORT PHRASE...',
    about: "Removes phrases from the company's vocabulary.",
    positional: [2, Infinity],
  },
  'org add': {
    usage: 'voxdex org add CO_SHORT ORG_SHORT',
    about: 'Creates an organization in an existing company.',
    positional: [2, 2],
  },
  'folder add': {
    usage: 'voxdex folder add CO_SHORT ORG_SHORT FOLDERNAME',
    about: 'Creates a folder in an existing company; says so when it also had to create the organization.',
    positional: [3, 3],
  },
  'company secret': {
    usage: 'voxdex company secret CO_SHORT [--rotate]',
    about: `Prints the company's callback signing secret (what receivers verify X-Voxdex-Signature with; docs/callbacks.md).
Nothing else changes: no token is issued and the default destination stays. With --rotate, a new secret replaces
it and is printed: callbacks are signed with it from their next attempt on (a receiver that still checks the old
one answers 401, which is retried, so give it the new secret soon).`,
    options: [['--rotate', 'replace the secret with a new one, then print it']],
    positional: [1, 1],
    flags: ['rotate'],
  },
  'callback resend': {
    usage: 'voxdex callback resend REQUESTID',
    about: `Sends a finished request's callbacks again (docs/callbacks.md, "Sending a callback again"): delivered, failed
or waiting ones, with the same X-Voxdex-Delivery id and the next attempt number. A running service sends them
within 30 s (at once in distributed mode); the request status shows the outcome.`,
    positional: [1, 1],
  },
  'token rotate': {
    usage: 'voxdex token rotate CO_SHORT',
    about: "Revokes every token of the company and prints the one new token.",
    positional: [1, 1],
  },
  models: {
    usage: 'voxdex models',
    about: 'Lists the installed model names, one per line; the first is the default.',
    positional: [0, 0],
  },
  transcribe: {
    usage: 'voxdex transcribe FILE... [--model NAME] [--output json|jsontop|text|srt|vtt] [--channels LIST]',
    about: `Transcribes WAV files (or zip/7z archives of them) in this process, without a server or a data dir:
the service's own pipeline, models and outputs. Transcripts go to stdout; with several files, json and
jsontop print one document per line and text/srt/vtt put a "==> NAME <==" line before each. A progress
bar on stderr for each recording when stderr is a terminal. A recording with no speech prints no lines
(json: a document without utterances) and says so on stderr. Exit status 0 when every file was
transcribed (speech or not), 1 if a file failed.`,
    options: [
      ['--model NAME', 'a model from `voxdex models` (default auto: en-us-moonshine, Moonshine, at every rate; the PocketSphinx models en-us-8k and en-us by name)'],
      ['--output FORMAT', 'json, jsontop, text (default), srt or vtt'],
      ['--channels LIST', 'only these channels, e.g. 0 or 0,1 (default: every channel, each its own speaker)'],
      ...OPTION_HELP,
    ],
    positional: [1, Infinity],
    valued: ['model', 'output', 'channels', ...OPTION_VALUED],
    booleans: OPTION_BOOLEANS,
  },
  import: {
    usage: 'voxdex import DIR --to CO_SHORT/ORG_SHORT/FOLDERNAME',
    about: `Submits every audio file and archive under DIR once (a content hash ledger skips what was submitted
before); a running server picks the jobs up within 2 s. See docs/drop-folder.md.`,
    options: [['--to CO/ORG/FOLDER', 'the destination folder'], ...OPTION_HELP],
    positional: [1, 1],
    valued: ['to', ...OPTION_VALUED],
    booleans: OPTION_BOOLEANS,
  },
  redact: {
    usage: 'voxdex redact CO_SHORT [--org ORG_SHORT] [--redact KINDS] [--text-only]',
    about: `Applies redaction to what the company has stored (docs/redaction.md): every finished request's transcripts,
index entries and result file are redacted, and the audio kept for playback is rewritten silent over the spans
(its unredacted upload deleted). Resumable: run it again after an interruption; finished requests are skipped.`,
    options: [
      ['--org ORG_SHORT', 'only this organization'],
      ['--redact KINDS', `${KINDS_HELP}; default: the company's kinds`],
      ['--text-only', 'leave the audio as it is'],
    ],
    positional: [1, 1],
    valued: ['org', 'redact'],
    flags: ['text-only'],
  },
  ...CATEGORY_COMMANDS,
  ...AUDIT_COMMANDS,
} satisfies Record<string, CommandSpec>;

type CommandName = keyof typeof COMMANDS;
const GROUPS = ['company', 'org', 'folder', 'token', 'vocab', 'category', 'callback', 'audit'];

const USAGE = `Usage:
${Object.values(COMMANDS)
  .map((c) => `  ${c.usage}`)
  .join('\n')}
Every command takes --help. ${ENVIRONMENT}`;

/** The names, each checked against the installed models (an alias of the registry counts); UNKNOWN_MODEL names the installed ones. */
function installedModels(config: Readonly<Config>, names: string[]): string[] {
  const registry = loadModelRegistry(config.modelsFile);
  const installed = registry.list();
  for (const name of names) {
    if (installed.includes(name)) continue;
    let spec: ReturnType<typeof registry.resolve> | undefined;
    try {
      spec = registry.resolve(name, 8000);
    } catch {
      spec = undefined;
    }
    if (!spec || !registry.isAvailable(spec)) {
      throw voxdexError('UNKNOWN_MODEL', `Unknown model ${JSON.stringify(name)}: --model takes an installed model (${installed.join(', ')}); leave it out for all of them`);
    }
  }
  return names;
}

/**
 * Tenancy for the admin commands: `fn` runs in one transaction on the mode's tenancy (the embedded
 * file, or PostgreSQL, where every running node picks the change up at once: pg-tenancy.ts).
 */
async function withTenancy<T>(config: Readonly<Config>, fn: (t: TenancyAdmin) => T): Promise<T> {
  const tenancy = await openTenancy(config);
  try {
    return await tenancy.change(fn);
  } finally {
    await tenancy.close();
  }
}

/** Finds the command named by the first one or two words; the rest are its arguments. */
function findCommand(argv: string[]): { name: CommandName; args: string[] } {
  const [cmd, sub] = argv;
  if (cmd === undefined) throw voxdexError('BAD_ARGUMENT', `A command is needed.\n${USAGE}`);
  if (GROUPS.includes(cmd)) {
    const name = `${cmd} ${sub}`;
    if (sub !== undefined && Object.hasOwn(COMMANDS, name)) return { name: name as CommandName, args: argv.slice(2) };
    const subs = Object.keys(COMMANDS).filter((k) => k.startsWith(`${cmd} `));
    const list = subs.map((k) => `  ${COMMANDS[k as CommandName].usage}`).join('\n');
    if (sub === '--help' || sub === '-h') throw Object.assign(new Error(`Usage:\n${list}`), { help: true });
    throw voxdexError('BAD_ARGUMENT', `${sub === undefined ? `voxdex ${cmd} needs a subcommand` : `Unknown command ${cmd} ${sub}`}.\nUsage:\n${list}`);
  }
  if (Object.hasOwn(COMMANDS, cmd)) return { name: cmd as CommandName, args: argv.slice(1) };
  throw voxdexError('BAD_ARGUMENT', `Unknown command ${cmd}.\n${USAGE}`);
}

export async function main(argv: string[], env: Record<string, string | undefined> = process.env): Promise<number> {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  if (argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
    if (argv.length === 1) {
      out(USAGE);
      return 0;
    }
    return main([...argv.slice(1), '--help'], env);
  }
  let found: { name: CommandName; args: string[] };
  try {
    found = findCommand(argv);
  } catch (err) {
    if ((err as { help?: boolean }).help) {
      out((err as Error).message);
      return 0;
    }
    throw err;
  }
  const spec: CommandSpec = COMMANDS[found.name];
  const parsed = parseArgs(spec, found.args);
  if (parsed === 'help') {
    out(helpText(spec));
    return 0;
  }
  const { positional: p, opts, flags } = parsed;
  const config = loadConfig(found.name === 'serve' && opts.role ? { ...env, VOXDEX_ROLE: opts.role.at(-1) } : env);
  switch (found.name) {
    case 'serve':
      return serve(config);
    case 'category add':
    case 'category list':
    case 'category remove':
      return runCategoryCommand(config, found.name, p, opts, out);
    case 'audit verify':
      return runAuditVerify(config, opts, out);
    case 'company add': {
      if (!opts.org || !opts.folder) usageError(spec, 'company add needs --org and --folder');
      const models = installedModels(config, opts.model ?? []);
      const r = await withTenancy(config, (t) => {
        const added = t.addCompany(p[0]!, { org: opts.org!.at(-1)!, folder: opts.folder!.at(-1)!, models });
        t.setModels(p[0]!, models); // no --model: every installed model, also for a company that had a list
        return added;
      });
      out(r.token);
      if (flags.has('show-secret')) out(r.callbackSecret);
      return 0;
    }
    case 'company list':
      for (const c of await withTenancy(config, (t) => t.listCompanies().map((info) => ({ ...info, settings: t.companySettings(info.company) })))) {
        const aliases = Object.entries(c.aliases).map(([a, m]) => `${a}=${m}`);
        out([c.company, `${c.defaultOrg}/${c.defaultFolder}`, c.models.join(',') || '*', aliases.join(','), describeCompany(c.settings)].join('\t'));
      }
      return 0;
    case 'company set': {
      const patch = settingsPatch(opts);
      if (Object.keys(patch).length === 0) usageError(spec, 'company set needs at least one of --scrub, --redact, --diarize, --gender, --sentiment, --numtrans, --agent-channel, --agent-phrases');
      const settings = await withTenancy(config, (t) => t.setCompanySettings(p[0]!, patch));
      await auditCli(config, { company: p[0]!, action: 'policy.set', target: p[0]!, detail: { ...patch } });
      out(`${p[0]}: ${describeCompany(settings)}`);
      return 0;
    }
    case 'vocab add': {
      const [company, ...phrases] = p as [string, ...string[]];
      const added = await withTenancy(config, (t) => t.addVocab(company, phrases));
      out(`${company}: added ${added.length} phrase${added.length === 1 ? '' : 's'}${added.length < phrases.length ? ` (${phrases.length - added.length} already there)` : ''}`);
      return 0;
    }
    case 'vocab list':
      for (const phrase of (await withTenancy(config, (t) => t.companySettings(p[0]!))).vocab ?? []) out(phrase);
      return 0;
    case 'vocab remove': {
      const [company, ...phrases] = p as [string, ...string[]];
      const removed = await withTenancy(config, (t) => t.removeVocab(company, phrases));
      out(`${company}: removed ${removed.length} phrase${removed.length === 1 ? '' : 's'}${removed.length < phrases.length ? ` (${phrases.length - removed.length} not in the vocabulary)` : ''}`);
      return 0;
    }
    case 'company alias': {
      const [company, alias, model] = p as [string, string, string];
      await withTenancy(config, (t) => t.setModelAlias(company, alias, model));
      out(`${company}: model ${alias} now means ${model}`);
      const installed = loadModelRegistry(config.modelsFile).list();
      if (!installed.includes(model)) process.stderr.write(`voxdex: warning: ${model} is not an installed model (installed: ${installed.join(', ')}); requests naming ${alias} fail until it is\n`);
      return 0;
    }
    case 'org add': {
      const [company, org] = p as [string, string];
      const created = await withTenancy(config, (t) => t.addOrg(company, org));
      out(created ? `created organization ${company}/${org}` : `organization ${company}/${org} already exists`);
      return 0;
    }
    case 'folder add': {
      const [company, org, folder] = p as [string, string, string];
      const r = await withTenancy(config, (t) => t.addFolder(company, org, folder));
      if (r.orgCreated) out(`created organization ${company}/${org} (it did not exist)`);
      out(r.folderCreated ? `created folder ${company}/${org}/${folder}` : `folder ${company}/${org}/${folder} already exists`);
      return 0;
    }
    case 'token rotate':
      out(await withTenancy(config, (t) => t.rotateToken(p[0]!)));
      return 0;
    case 'company secret':
      out(await withTenancy(config, (t) => (flags.has('rotate') ? t.rotateCallbackSecret(p[0]!) : t.callbackSecret(p[0]!))));
      return 0;
    case 'callback resend':
      return resendCommand(config, p[0]!, out);
    case 'models':
      for (const name of loadModelRegistry(config.modelsFile).list()) out(name);
      return 0;
    case 'transcribe': {
      const cmd = transcribeCommand(p, opts);
      const err = (text: string) => process.stderr.write(text);
      // A missing, unreadable or non-audio file is one line, before any model loads; the others still run.
      const files = checkInputFiles(cmd.files, config.transcode, err);
      if (files.length === 0) return 1;
      const progress = process.stderr.isTTY ? process.stderr : undefined;
      progress?.write('voxdex: loading the speech models…\n');
      const code = await runTranscribe({ ...cmd, files }, config, { out: (text) => process.stdout.write(text), err, progress });
      return files.length < cmd.files.length ? 1 : code;
    }
    case 'redact':
      return redactCommand(config, p[0]!, { org: opts.org?.at(-1), kinds: opts.redact?.at(-1), textOnly: flags.has('text-only') }, out);
    case 'import':
      if (!opts.to) usageError(spec, 'import needs --to CO_SHORT/ORG_SHORT/FOLDERNAME');
      return importCommand(config, [p[0]!, '--to', opts.to.at(-1)!], optionFields(opts));
  }
}

/** `voxdex company set`'s options as a settings patch (each checked; the last of a repeated option wins). */
function settingsPatch(opts: Record<string, string[]>): CompanySettings {
  const patch: CompanySettings = {};
  const last = (name: string) => opts[name]?.at(-1);
  if (last('scrub') !== undefined) patch.scrub = parseKindList('scrub target', last('scrub')!, SCRUB_TARGETS);
  const redact = last('redact');
  if (redact !== undefined) {
    // `none` (or empty): back to the default kinds; else the one kinds parser (redact/kinds.ts).
    const choice = /^\s*(none)?\s*$/i.test(redact) ? NO_CHOICE : parseKinds('--redact', redact);
    if (effectiveKinds(choice).length === 0) throw voxdexError('BAD_ARGUMENT', '--redact turns every kind off; to redact nothing use --scrub none');
    patch.redact = choice.on;
    patch.redactOff = choice.off;
  }
  for (const flag of COMPANY_DEFAULTS) {
    if (last(flag) !== undefined) patch[flag] = parseOnOff(flag, last(flag)!);
  }
  if (last('agent-channel') !== undefined) patch.agentChannel = parseAgentChannel(last('agent-channel')!);
  if (last('agent-phrases') !== undefined) patch.agentPhrases = parsePhraseList(last('agent-phrases')!);
  return patch;
}

async function serve(config: Readonly<Config>): Promise<number> {
  const log = createLogger(config);
  const service = await createService(config, { log });
  process.stderr.write(`voxdex: root token file: ${config.rootTokenFile}\nvoxdex: listening on ${service.url}\n`);
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      log.info({ signal }, 'stopping');
      const force = setTimeout(() => {
        log.error('shutdown took longer than 30 s; exiting');
        process.exit(1);
      }, 30_000);
      force.unref();
      service.close().then(
        () => resolve(0),
        (err) => {
          log.error({ err }, 'shutdown failed');
          resolve(1);
        },
      );
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
    watchParent(() => stop('parent exited'));
  });
}

/**
 * Calls `gone` once when the process that started this one has exited (this one was re-parented).
 * `npx voxdex serve` runs the command through `sh -c`; Debian's dash does not exec it, so npm's
 * SIGTERM kills the shell and never reaches the server, which would run on orphaned (holding the
 * port and the data dir). The project's .npmrc makes npm use bash, which execs the command, so the
 * signal arrives itself and npm waits for the graceful stop; this is the fallback wherever that file
 * is not read (npx run from another folder).
 */
function watchParent(gone: () => void): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    gone();
  }, 1000);
  timer.unref();
}

async function importCommand(config: Readonly<Config>, argv: string[], options: RequestOptionValues): Promise<number> {
  const { dir, to } = parseImportArgs(argv);
  resolveRequestOptions(options, {}); // the flags' values, checked once here (each company's policy is checked per file)
  const registry = loadModelRegistry(config.modelsFile);
  const installedModels = () => registry.list();
  // Accepts only: a running worker (or `serve`) picks the jobs up (woken by the database, or within 2 s).
  const ports = await openPorts(config, { node: `import:${process.pid}`, log: silentLogger });
  try {
    const intake = new JobIntake({ config, store: ports.jobs, tenancy: ports.tenancy, blobs: ports.blobs, seal: AudioSeal.of(ports.tenancy), paths: new JobPaths(config.dataDir), installedModels });
    const summary = await runImport({ dir: path.resolve(dir), to, submitter: serviceSubmitter(intake), ledger: ports.ledger, options, progress: process.stdout.isTTY });
    return summary.failed > 0 ? 1 : 0;
  } finally {
    await ports.close();
  }
}

async function resendCommand(config: Readonly<Config>, requestid: string, out: (line: string) => void): Promise<number> {
  if (!isUuid(requestid)) throw voxdexError('BAD_ARGUMENT', `Expected a requestid (a UUID) but received ${JSON.stringify(requestid)}`);
  const log = createLogger(config, process.stderr);
  const ports = await openPorts(config, { node: `callback:${process.pid}`, log });
  try {
    const job = await ports.jobs.get(requestid);
    if (!job) throw voxdexError('NOT_FOUND', `Request ${requestid} does not exist (or was deleted)`);
    const n = await resendCallbacks(ports.outbox, job, log, 'cli');
    out(`${requestid}: ${n} callback${n === 1 ? '' : 's'} queued to be sent again`);
    return 0;
  } finally {
    await ports.close();
  }
}

/** A company's settings in one line, its effective kinds among them (`redact=card,ssn,digits,name,-cvv,-expiry`). */
function describeCompany(settings: CompanySettings): string {
  return describeCompanySettings(settings, describeKinds(companyKinds(settings)));
}

async function redactCommand(config: Readonly<Config>, company: string, o: { org?: string; kinds?: string; textOnly: boolean }, out: (line: string) => void): Promise<number> {
  const ports = await openPorts(config, { node: `redact:${process.pid}`, log: silentLogger });
  try {
    const kinds = applyKinds(companyKinds(ports.tenancy.companySettings(company)), parseKinds('--redact', o.kinds));
    await ports.index.init();
    const r = await redactStored(
      { store: ports.jobs, blobs: ports.blobs, seal: AudioSeal.of(ports.tenancy), index: ports.index, scratchDir: new JobPaths(config.dataDir).incoming },
      { company, org: o.org, kinds, audio: !o.textOnly, onProgress: (p) => process.stderr.write(`\rvoxdex: ${p.done} requests, ${p.changed} redacted`) },
    );
    process.stderr.write('\n');
    out(`${company}: ${r.requests} requests checked, ${r.changed} redacted`);
    return 0;
  } finally {
    await ports.close();
  }
}

/** Runs the command line and exits with its status (errors: message on stderr, 2 for usage, 1 otherwise). */
export function run(argv: string[]): void {
  // Everything voxdex writes (recordings, transcripts, results, databases, keys) is for its own user only.
  process.umask(0o077);
  main(argv).then(
    (code) => process.exit(code),
    (err) => {
      const e = toVoxdexError(err);
      process.stderr.write(`voxdex: ${e.code === 'INTERNAL' ? (err as Error).stack : e.message}\n`);
      process.exit(e.code === 'BAD_ARGUMENT' ? 2 : 1);
    },
  );
}

// Run when executed directly (bin/voxdex.js imports this module and calls run itself).
if (process.argv[1] && /voxdex\.(ts|js)$/.test(process.argv[1]) && !/bin[\\/]voxdex\.js$/.test(process.argv[1])) run(process.argv.slice(2));
