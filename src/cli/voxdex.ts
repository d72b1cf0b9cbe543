/**
 * The `voxdex` command (API.md §9):
 *   voxdex serve
 *   voxdex company add CO --org ORG --folder FOLDER [--model NAME]... [--show-secret]
 *   voxdex company list
 *   voxdex company alias CO ALIAS MODEL
 *   voxdex org add CO ORG
 *   voxdex folder add CO ORG FOLDER
 *   voxdex token rotate CO
 *   voxdex models
 *   voxdex import DIR --to CO/ORG/FOLDER
 * Admin commands work while the service runs (same data dir; SQLite WAL).
 */
import path from 'node:path';
import { loadModelRegistry } from '../asr/models.js';
import { loadConfig, type Config } from '../config.js';
import { toVoxdexError, voxdexError } from '../errors.js';
import { JobIntake } from '../jobs/intake.js';
import { createLogger } from '../log.js';
import { createService, serviceSubmitter } from '../service.js';
import { JobPaths } from '../store/paths.js';
import { jobStorePath } from '../store/sqlite-job-store.js';
import { openSqliteStores } from '../store/sqlite-stores.js';
import { Tenancy, tenancyDbPath } from '../tenancy/tenancy.js';
import { parseImportArgs, runImport } from './import.js';

const USAGE = `Usage:
  voxdex serve
  voxdex company add CO_SHORT --org ORG_SHORT --folder FOLDERNAME [--model NAME]... [--show-secret]
  voxdex company list
  voxdex company alias CO_SHORT ALIAS MODEL
  voxdex org add CO_SHORT ORG_SHORT
  voxdex folder add CO_SHORT ORG_SHORT FOLDERNAME
  voxdex token rotate CO_SHORT
  voxdex models
  voxdex import DIR --to CO_SHORT/ORG_SHORT/FOLDERNAME
Environment: VOXDEX_PORT, VOXDEX_HOST, VOXDEX_DATA_DIR, VOXDEX_DROP_DIR, VOXDEX_ES_URL (see docs/service.md).`;

function usage(message?: string): never {
  throw voxdexError('BAD_ARGUMENT', message ? `${message}\n${USAGE}` : USAGE);
}

/** Splits `--name value` / `--name=value` options (repeatable) from positional arguments. */
function parseOptions(argv: string[], valued: string[], flags: string[]) {
  const positional: string[] = [];
  const opts: Record<string, string[]> = {};
  const seen = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) {
      positional.push(a);
      continue;
    }
    const [name, inline] = a.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
    if (flags.includes(name)) seen.add(name);
    else if (valued.includes(name)) {
      const v = inline ?? argv[++i];
      if (v === undefined) usage(`--${name} needs a value`);
      (opts[name] ??= []).push(v);
    } else usage(`Unknown option --${name}`);
  }
  return { positional, opts, flags: seen };
}

function openTenancy(config: Readonly<Config>): Tenancy {
  return new Tenancy(tenancyDbPath(config.dataDir));
}

export async function main(argv: string[], env: Record<string, string | undefined> = process.env): Promise<number> {
  const [cmd, sub, ...rest] = argv;
  const config = loadConfig(env);
  const out = (line: string) => process.stdout.write(`${line}\n`);
  switch (cmd) {
    case 'serve':
      return serve(config);
    case 'company': {
      if (sub === 'add') {
        const { positional, opts, flags } = parseOptions(rest, ['org', 'folder', 'model'], ['show-secret']);
        if (positional.length !== 1 || !opts.org || !opts.folder) usage('company add needs CO_SHORT, --org and --folder');
        const t = openTenancy(config);
        try {
          const r = t.addCompany(positional[0]!, { org: opts.org.at(-1)!, folder: opts.folder.at(-1)!, models: opts.model });
          out(r.token);
          if (flags.has('show-secret')) out(r.callbackSecret);
        } finally {
          t.close();
        }
        return 0;
      }
      if (sub === 'list') {
        const t = openTenancy(config);
        try {
          for (const c of t.listCompanies()) {
            const aliases = Object.entries(c.aliases).map(([a, m]) => `${a}=${m}`);
            out([c.company, `${c.defaultOrg}/${c.defaultFolder}`, c.models.join(',') || '*', aliases.join(',')].join('\t'));
          }
        } finally {
          t.close();
        }
        return 0;
      }
      if (sub === 'alias') {
        if (rest.length !== 3) usage('company alias needs CO_SHORT ALIAS MODEL');
        const t = openTenancy(config);
        try {
          t.setModelAlias(rest[0]!, rest[1]!, rest[2]!);
        } finally {
          t.close();
        }
        return 0;
      }
      return usage();
    }
    case 'org':
    case 'folder': {
      const want = cmd === 'org' ? 2 : 3;
      if (sub !== 'add' || rest.length !== want) usage();
      const t = openTenancy(config);
      try {
        if (cmd === 'org') t.addOrg(rest[0]!, rest[1]!);
        else t.addFolder(rest[0]!, rest[1]!, rest[2]!);
      } finally {
        t.close();
      }
      return 0;
    }
    case 'token': {
      if (sub !== 'rotate' || rest.length !== 1) usage();
      const t = openTenancy(config);
      try {
        out(t.rotateToken(rest[0]!));
      } finally {
        t.close();
      }
      return 0;
    }
    case 'models': {
      for (const name of loadModelRegistry(config.modelsFile).list()) out(name);
      return 0;
    }
    case 'import':
      return importCommand(config, argv.slice(1));
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      out(USAGE);
      return cmd === undefined ? 2 : 0;
    default:
      return usage(`Unknown command ${cmd}`);
  }
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
  });
}

async function importCommand(config: Readonly<Config>, argv: string[]): Promise<number> {
  const { dir, to } = parseImportArgs(argv);
  const stores = openSqliteStores(jobStorePath(config.dataDir));
  const tenancy = openTenancy(config);
  const registry = loadModelRegistry(config.modelsFile);
  try {
    // Accepts only: the serving process picks the jobs up (it looks for queued jobs every 2 s).
    const intake = new JobIntake({ config, store: stores.jobs, tenancy, paths: new JobPaths(config.dataDir), installedModels: () => registry.list() });
    const summary = await runImport({ dir: path.resolve(dir), to, submitter: serviceSubmitter(intake), ledger: stores.ledger, progress: process.stdout.isTTY });
    return summary.failed > 0 ? 1 : 0;
  } finally {
    await stores.close();
    tenancy.close();
  }
}

/** Runs the command line and exits with its status (errors: message on stderr, 2 for usage, 1 otherwise). */
export function run(argv: string[]): void {
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
