/**
 * `voxdex import DIR --to CO/ORG/FOLDER`: a one-off batch submission of every audio file and archive
 * under DIR (recursively; hidden entries, `*.part` and `.json` sidecars skipped), each content
 * exactly once (the same sha256 ledger as the drop folder, so a rerun or an overlap with the drop
 * folder submits nothing twice). Files are left where they are. A progress bar when stdout is a TTY,
 * a plain line every few seconds otherwise, and a summary at the end.
 */
import cliProgress from 'cli-progress';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { voxdexError, type ErrorInfo } from '../errors.js';
import { isShortName } from '../is.js';
import type { Destination } from '../types.js';
import { isCandidateName } from '../drop/files.js';
import { intakeFile } from '../drop/submit-once.js';
import type { Submitter } from '../drop/submitter.js';
import type { RequestOptionValues } from '../jobs/request-options.js';
import type { SubmissionLedger } from '../store/ledger.js';

export interface ImportOptions {
  dir: string;
  /** `CO/ORG/FOLDER` or a Destination. */
  to: string | Destination;
  submitter: Submitter;
  /** The sha256 ledger (in the service's store). */
  ledger: SubmissionLedger;
  /** Request options for every file (a sidecar's `options` override them field by field). */
  options?: RequestOptionValues;
  /** Where lines go (default: console.log). */
  log?: (line: string) => void;
  /** Draw a cli-progress bar (pass `process.stdout.isTTY`); otherwise plain periodic lines. */
  progress?: boolean;
  /** Seconds between plain progress lines (default 5). */
  progressEverySec?: number;
  /** Wait before retrying a file the service was too busy to take (default 2000 ms), and how often (default 30). */
  busyRetryMs?: number;
  busyRetries?: number;
}

export interface ImportSummary {
  total: number;
  submitted: number;
  duplicates: number;
  failed: number;
  failures: { file: string; error: ErrorInfo }[];
}

/** Parses `DIR --to CO/ORG/FOLDER` (any order). Throws BAD_ARGUMENT with the usage. */
export function parseImportArgs(argv: string[]): { dir: string; to: Destination } {
  const usage = 'Usage: voxdex import DIR --to CO_SHORT/ORG_SHORT/FOLDERNAME';
  let dir: string | undefined;
  let to: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--to') to = argv[++i];
    else if (a.startsWith('--to=')) to = a.slice(5);
    else if (a.startsWith('-')) throw voxdexError('BAD_ARGUMENT', `Unknown option ${a}. ${usage}`);
    else if (dir === undefined) dir = a;
    else throw voxdexError('BAD_ARGUMENT', `Unexpected argument ${a}. ${usage}`);
  }
  if (!dir || !to) throw voxdexError('BAD_ARGUMENT', usage);
  return { dir, to: parseDestination(to) };
}

export function parseDestination(to: string): Destination {
  const parts = to.split('/');
  if (parts.length !== 3 || !parts.every(isShortName)) {
    throw voxdexError('BAD_NAME', `Expected CO_SHORT/ORG_SHORT/FOLDERNAME (names of [A-Za-z0-9_.-], 1-64 characters) for --to but received ${JSON.stringify(to)}`);
  }
  return { company: parts[0]!, org: parts[1]!, folder: parts[2]! };
}

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue;
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(p)));
    else if (entry.isFile() && isCandidateName(entry.name)) out.push(p);
  }
  return out.sort();
}

export async function runImport(options: ImportOptions): Promise<ImportSummary> {
  const log = options.log ?? ((line: string) => console.log(line));
  const destination = typeof options.to === 'string' ? parseDestination(options.to) : options.to;
  const root = path.resolve(options.dir);
  let files: string[];
  try {
    files = await listFiles(root);
  } catch (err) {
    throw voxdexError('NOT_FOUND', `Cannot read ${root} (${(err as Error).message}); name a directory of audio files`);
  }
  const ledger = options.ledger;
  const s: ImportSummary = { total: files.length, submitted: 0, duplicates: 0, failed: 0, failures: [] };
  const where = `${destination.company}/${destination.org}/${destination.folder}`;
  log(`import: ${files.length} files from ${root} to ${where}`);

  const bar = options.progress
    ? new cliProgress.SingleBar(
        { format: 'import [{bar}] {value}/{total} | submitted {submitted} | duplicates {duplicates} | failed {failed} | eta {eta_formatted}', stream: process.stdout, hideCursor: true },
        cliProgress.Presets.shades_classic,
      )
    : undefined;
  bar?.start(files.length, 0, { submitted: 0, duplicates: 0, failed: 0 });
  let lastLine = Date.now();
  const everyMs = (options.progressEverySec ?? 5) * 1000;

  try {
    for (const [i, file] of files.entries()) {
      let result = await intakeFile(file, destination, 'import', { ledger, submitter: options.submitter, options: options.options });
      for (let tries = 0; result.kind === 'busy' && tries < (options.busyRetries ?? 30); tries++) {
        await new Promise((r) => setTimeout(r, options.busyRetryMs ?? 2000));
        result = await intakeFile(file, destination, 'import', { ledger, submitter: options.submitter, options: options.options });
      }
      if (result.kind === 'submitted') s.submitted++;
      else if (result.kind === 'duplicate' || result.kind === 'resumed') s.duplicates++;
      else {
        s.failed++;
        s.failures.push({ file: path.relative(root, file), error: result.error });
        if (result.error.code === 'NOT_FOUND' && i === 0 && files.length > 1) {
          throw voxdexError('NOT_FOUND', `${result.error.message} (import stopped: every file would fail the same way)`);
        }
      }
      bar?.update(i + 1, { submitted: s.submitted, duplicates: s.duplicates, failed: s.failed });
      if (!bar && Date.now() - lastLine >= everyMs) {
        lastLine = Date.now();
        log(`import: ${i + 1}/${files.length} files (submitted ${s.submitted}, duplicates ${s.duplicates}, failed ${s.failed})`);
      }
    }
  } finally {
    bar?.stop();
  }
  log(formatSummary(s));
  return s;
}

export function formatSummary(s: ImportSummary): string {
  const lines = [`import done: ${s.total} files: submitted ${s.submitted}, skipped duplicates ${s.duplicates}, failed ${s.failed}`];
  for (const f of s.failures) lines.push(`  failed ${f.file}: ${f.error.code}: ${f.error.message}`);
  return lines.join('\n');
}
