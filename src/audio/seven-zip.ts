/**
 * The Debian `7z` CLI (p7zip-full / 7-Zip 26) as a child process: list, read the head of one
 * member, stream the members out. Arguments are an array (no shell), `-p<zpass>` is always passed
 * (empty when none, so 7z never prompts) and stdin is closed, so it can never wait for input. The
 * archive is the child's descriptor 3 (archive-input.ts: an in-memory copy of a sealed upload), and
 * members come out on its stdout (`-so`): 7z never writes a member to disk.
 */
import { spawn } from 'node:child_process';
import type { Writable } from 'node:stream';
import { voxdexError } from '../errors.js';
import { ARCHIVE_FD_PATH, type ArchiveInput } from './archive-input.js';
import { decodeOutput } from './member-names.js';

export type ArchiveType = 'zip' | '7z';

export interface ArchiveEntry {
  name: string;
  size: number;
  /** Compressed size; for members of a solid 7z block, the block's compressed size on its first member and 0 on the rest. */
  packed: number;
  encrypted: boolean;
  directory: boolean;
  symlink: boolean;
  /** 7z solid block index, when the archive has blocks. */
  block?: number;
  /** How to name the member to 7z when its stored name is not UTF-8 (a wildcard pattern; member-names.ts). */
  pattern?: string;
}

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Names decoded from a legacy code page in stdout → their 7z patterns. */
  patterns: Map<string, string>;
  /** Output beyond OUTPUT_LIMIT was dropped. */
  truncated?: boolean;
}

const SEVEN_ZIP = '7z';
const OUTPUT_LIMIT = 64 << 20;

function run7z(args: string[], input: ArchiveInput, signal?: AbortSignal): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(SEVEN_ZIP, args, { stdio: ['ignore', 'pipe', 'pipe', input.fd], signal });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let bytes = 0;
    const collect = (into: Buffer[]) => (b: Buffer) => {
      bytes += b.length;
      if (bytes <= OUTPUT_LIMIT) into.push(b);
    };
    child.stdout!.on('data', collect(out));
    child.stderr!.on('data', collect(err));
    child.on('error', (e) => {
      if ((e as { name?: string }).name === 'AbortError') reject(voxdexError('CANCELLED', 'Unpacking was cancelled.'));
      else reject(voxdexError('INTERNAL', `cannot run ${SEVEN_ZIP}: ${e.message}; install p7zip-full`, e));
    });
    child.on('close', (code) => {
      const { text, patterns } = decodeOutput(Buffer.concat(out));
      resolve({ code, stdout: text, stderr: Buffer.concat(err).toString('utf8'), patterns, truncated: bytes > OUTPUT_LIMIT });
    });
  });
}

const WRONG_PASSWORD = /Wrong password|Can ?not open encrypted archive/i;

function passwordError(zpass: string | undefined): Error {
  return zpass
    ? voxdexError('BAD_ZPASS', 'The archive password (zpass) is wrong. Send the password the archive was made with.')
    : voxdexError('BAD_ZPASS', 'The archive is encrypted. Send its password in the zpass field.');
}

/**
 * 7z's error lines, for the client: never a server path (7z names the archive and the output folder by
 * their paths under the data dir); a line that said nothing but a path is left out.
 */
function errorLines(r: RunResult, paths: string[] = []): string {
  return `${r.stderr}\n${r.stdout}`
    .split('\n')
    .map((l) => hidePaths(l.trim(), paths))
    .filter((l) => /^(ERROR|WARNING|Open ERROR|Can ?not|Unexpected|Headers Error|Data Error|CRC Failed|Is not archive)/i.test(l) && !/^(ERROR:[\s:]*|ERRORS:?\s*\d*)$/i.test(l))
    .slice(0, 5)
    .join('; ');
}

/** Removes `paths` and any other absolute path from a line of 7z output. */
function hidePaths(line: string, paths: string[]): string {
  let out = line;
  for (const p of paths) out = out.split(p).join('');
  return out.replace(/(^|[\s'"(])\/[^\s'"():;]*/g, '$1').replace(/\s+/g, ' ').trim();
}

/** Lists an archive's members. Encrypted headers are opened with zpass (BAD_ZPASS when it does not open). */
export async function listArchive(input: ArchiveInput, type: ArchiveType, zpass: string | undefined, signal?: AbortSignal): Promise<ArchiveEntry[]> {
  const path = ARCHIVE_FD_PATH;
  const r = await run7z(['l', '-slt', '-bd', `-t${type}`, `-p${zpass ?? ''}`, '--', path], input, signal);
  const all = `${r.stderr}\n${r.stdout}`;
  if (WRONG_PASSWORD.test(all)) throw passwordError(zpass);
  if (r.truncated) throw voxdexError('ARCHIVE_LIMIT', `The archive's listing is over ${OUTPUT_LIMIT >> 20} MiB: too many members. Split it into smaller archives.`);
  if (r.code !== 0) throw voxdexError('BAD_ARCHIVE', `The ${type} archive cannot be read (${errorLines(r, [path]) || `7z exit code ${r.code}`}). Send a complete, valid archive.`);
  const sep = r.stdout.indexOf('\n----------\n');
  if (sep < 0) return [];
  const entries: ArchiveEntry[] = [];
  for (const block of r.stdout.slice(sep + 12).split(/\n\s*\n/)) {
    const f = new Map<string, string>();
    for (const line of block.split('\n')) {
      const eq = line.indexOf(' = ');
      if (eq > 0) f.set(line.slice(0, eq), line.slice(eq + 3));
      else if (line.endsWith(' =')) f.set(line.slice(0, -2), '');
    }
    const name = f.get('Path');
    if (name === undefined) continue;
    const attributes = f.get('Attributes') ?? '';
    entries.push({
      name,
      size: Number(f.get('Size') || 0),
      packed: Number(f.get('Packed Size') || 0),
      encrypted: f.get('Encrypted') === '+',
      directory: f.get('Folder') === '+' || /^D/.test(attributes.trim()) || /\bd[rwxsStT-]{9}\b/.test(attributes),
      symlink: /\bl[rwxsStT-]{9}\b/.test(attributes) || (f.get('Symbolic Link') ?? '') !== '',
      ...(f.has('Block') && f.get('Block') !== '' ? { block: Number(f.get('Block')) } : {}),
      ...(r.patterns.has(name) ? { pattern: r.patterns.get(name)! } : {}),
    });
  }
  return entries;
}

/**
 * Decompresses one member and returns its first `bytes` bytes (the rest is read and discarded, so
 * 7z verifies the whole member: a wrong ZipCrypto password is caught by the CRC at its end).
 */
export async function readMemberHead(input: ArchiveInput, type: ArchiveType, entry: string | ArchiveEntry, zpass: string | undefined, bytes: number, signal?: AbortSignal): Promise<Buffer> {
  const head: Buffer[] = [];
  let got = 0;
  await streamOut(input, type, zpass, [entry], (b) => {
    if (got < bytes) head.push(b.subarray(0, bytes - got));
    got += b.length;
  }, signal);
  return Buffer.concat(head);
}

/**
 * Runs `7z x -so` on the archive (every member, or `only` those), handing each block of its stdout
 * to `onData` (backpressure: a returned promise pauses the output until it settles). Rejects with
 * BAD_ZPASS for a wrong password and BAD_ARCHIVE for any other failure.
 */
function streamOut(
  input: ArchiveInput,
  type: ArchiveType,
  zpass: string | undefined,
  only: Array<string | ArchiveEntry> | undefined,
  onData: (b: Buffer) => void | Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  const names = (only ?? []).map((e) => (typeof e === 'string' ? e : (e.pattern ?? e.name)));
  // A name that is not UTF-8 is matched by its pattern (wildcards on); any other name literally (-spd).
  const literal = (only ?? []).every((e) => typeof e === 'string' || e.pattern === undefined);
  const args = ['x', '-so', '-bd', ...(literal ? ['-spd'] : []), `-t${type}`, `-p${zpass ?? ''}`, '--', ARCHIVE_FD_PATH, ...names];
  const what = only?.length === 1 ? `Member ${JSON.stringify(typeof only[0] === 'string' ? only[0] : only[0]!.name)}` : `The ${type} archive`;
  return new Promise((resolve, reject) => {
    const child = spawn(SEVEN_ZIP, args, { stdio: ['ignore', 'pipe', 'pipe', input.fd], signal });
    const stdout = child.stdout!;
    let stderr = '';
    let failed: unknown;
    // Blocks are handed on one at a time: the output pauses while one is written.
    let handed: Promise<void> = Promise.resolve();
    stdout.on('data', (b: Buffer) => {
      if (failed !== undefined) return;
      stdout.pause();
      handed = handed
        .then(() => onData(b))
        .then(
          () => void stdout.resume(),
          (err: unknown) => {
            failed ??= err;
            child.kill();
            stdout.resume(); // drain what is left
          },
        );
    });
    child.stderr!.on('data', (b: Buffer) => {
      if (stderr.length < 65536) stderr += b.toString('utf8');
    });
    child.on('error', (e) => reject((e as { name?: string }).name === 'AbortError' ? voxdexError('CANCELLED', 'Unpacking was cancelled.') : voxdexError('INTERNAL', `cannot run ${SEVEN_ZIP}: ${e.message}`, e)));
    child.on('close', (code) => {
      void handed.then(() => {
        if (failed !== undefined) reject(failed);
        else if (WRONG_PASSWORD.test(stderr)) reject(passwordError(zpass));
        else if (code !== 0) reject(voxdexError('BAD_ARCHIVE', `${what} cannot be read (${errorLines({ code, stdout: '', stderr, patterns: new Map() }, [ARCHIVE_FD_PATH]) || `7z exit code ${code}`}). Send a complete, valid archive.`));
        else resolve();
      });
    });
  });
}

/** Where the bytes of one member go: a stream that takes them, or undefined to skip the member. */
type MemberSink = (entry: ArchiveEntry, index: number) => Writable | undefined;

/**
 * Streams the file members `files` (the listing's file entries, in its order: the order of 7z's
 * output) into the streams `sink` gives. One 7z run splits its output by the listed sizes; when that
 * run fails (a damaged member, one with another password), each wanted member is extracted alone,
 * so the good ones are kept. Resolves to the members that could not be extracted → why.
 * Throws BAD_ZPASS when the password is wrong for the first member tried.
 */
export async function extractMembers(input: ArchiveInput, type: ArchiveType, zpass: string | undefined, files: readonly ArchiveEntry[], sink: MemberSink, signal?: AbortSignal): Promise<Map<string, string>> {
  const failed = new Map<string, string>();
  try {
    await splitOutput(input, type, zpass, files, sink, signal);
    return failed;
  } catch (err) {
    if ((err as { code?: string }).code !== 'BAD_ARCHIVE') throw err;
  }
  for (const [index, entry] of files.entries()) {
    const out = sink(entry, index);
    if (!out) continue;
    try {
      await splitOutput(input, type, zpass, [entry], () => out, signal, [entry]);
    } catch (err) {
      if ((err as { code?: string }).code !== 'BAD_ARCHIVE') throw err;
      failed.set(entry.name, (err as Error).message.replace(/^Member .*? cannot be read \((.*)\)\. Send a complete, valid archive\.$/s, '$1'));
    }
  }
  return failed;
}

/** One 7z run whose output is `files`' bytes one after the other, each written to its sink (or dropped). */
async function splitOutput(
  input: ArchiveInput,
  type: ArchiveType,
  zpass: string | undefined,
  files: readonly ArchiveEntry[],
  sink: MemberSink,
  signal: AbortSignal | undefined,
  only?: ArchiveEntry[],
): Promise<void> {
  const opened: Writable[] = [];
  let k = -1;
  let left = 0;
  let out: Writable | undefined;
  /** Ends the current member's stream and opens the next one's (members of 0 bytes are opened and ended at once). */
  const advance = async () => {
    do {
      if (out) await endStream(out);
      k++;
      left = files[k]?.size ?? 0;
      out = k < files.length ? sink(files[k]!, k) : undefined;
      if (out) opened.push(out.on('error', () => undefined)); // errors reach the write and end callbacks
    } while (k < files.length && left === 0);
  };
  try {
    await advance();
    await streamOut(input, type, zpass, only, async (b) => {
      for (let at = 0; at < b.length; ) {
        if (k >= files.length) throw voxdexError('BAD_ARCHIVE', `The ${type} archive holds more bytes than its listing says. Send a complete, valid archive.`);
        const n = Math.min(left, b.length - at);
        if (out) await writeTo(out, b.subarray(at, at + n));
        at += n;
        left -= n;
        if (left === 0) await advance();
      }
    }, signal);
    if (k < files.length) throw voxdexError('BAD_ARCHIVE', `The ${type} archive ended before its member ${JSON.stringify(files[k]!.name)} was complete. Send a complete, valid archive.`);
  } catch (err) {
    // Unfinished members' files are removed before anyone writes them again (a retry member by member).
    await Promise.all(opened.map((s) => (s.closed ? undefined : new Promise<void>((resolve) => (s.once('close', () => resolve()), s.destroy())))));
    throw err;
  }
}

function writeTo(out: Writable, b: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    out.write(b, (err) => (err ? reject(err) : resolve()));
  });
}

function endStream(out: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    out.once('error', reject);
    out.end(() => resolve());
  });
}
