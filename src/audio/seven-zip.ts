/**
 * The Debian `7z` CLI (p7zip-full / 7-Zip 26) as a child process: list, read the head of one
 * member, extract. Arguments are an array (no shell), `-p<zpass>` is always passed (empty when
 * none, so 7z never prompts) and stdin is closed, so it can never wait for input.
 */
import { spawn } from 'node:child_process';
import { voxdexError } from '../errors.js';
import { decodeOutput, renameLegacyNames } from './member-names.js';

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

function run7z(args: string[], signal?: AbortSignal): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(SEVEN_ZIP, args, { stdio: ['ignore', 'pipe', 'pipe'], signal });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let bytes = 0;
    const collect = (into: Buffer[]) => (b: Buffer) => {
      bytes += b.length;
      if (bytes <= OUTPUT_LIMIT) into.push(b);
    };
    child.stdout.on('data', collect(out));
    child.stderr.on('data', collect(err));
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
export async function listArchive(path: string, type: ArchiveType, zpass: string | undefined, signal?: AbortSignal): Promise<ArchiveEntry[]> {
  const r = await run7z(['l', '-slt', '-bd', `-t${type}`, `-p${zpass ?? ''}`, '--', path], signal);
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
export function readMemberHead(path: string, type: ArchiveType, entry: string | ArchiveEntry, zpass: string | undefined, bytes: number, signal?: AbortSignal): Promise<Buffer> {
  const member = typeof entry === 'string' ? entry : entry.name;
  // A name that is not UTF-8 is matched by its pattern (wildcards on); any other name literally (-spd).
  const pattern = typeof entry === 'string' ? undefined : entry.pattern;
  const args = ['x', '-so', '-bd', ...(pattern === undefined ? ['-spd'] : []), `-t${type}`, `-p${zpass ?? ''}`, '--', path, pattern ?? member];
  return new Promise((resolve, reject) => {
    const child = spawn(SEVEN_ZIP, args, { stdio: ['ignore', 'pipe', 'pipe'], signal });
    const head: Buffer[] = [];
    let got = 0;
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => {
      if (got < bytes) head.push(b.subarray(0, bytes - got));
      got += b.length;
    });
    child.stderr.on('data', (b: Buffer) => {
      if (stderr.length < 65536) stderr += b.toString('utf8');
    });
    child.on('error', (e) => reject((e as { name?: string }).name === 'AbortError' ? voxdexError('CANCELLED', 'Unpacking was cancelled.') : voxdexError('INTERNAL', `cannot run ${SEVEN_ZIP}: ${e.message}`, e)));
    child.on('close', (code) => {
      if (WRONG_PASSWORD.test(stderr)) reject(passwordError(zpass));
      else if (code !== 0) reject(voxdexError('BAD_ARCHIVE', `Member ${JSON.stringify(member)} cannot be read (${errorLines({ code, stdout: '', stderr, patterns: new Map() }, [path]) || `7z exit code ${code}`}). Send a complete, valid archive.`));
      else resolve(Buffer.concat(head));
    });
  });
}

/**
 * Extracts members into `dir` (7z streams them to disk; a name stored twice is written as `stem_1.ext`, …:
 * duplicate-members.ts). Returns member names 7z reported errors for.
 * Throws BAD_ZPASS when the password is wrong, BAD_ARCHIVE when nothing could be extracted.
 */
export async function extractArchive(path: string, type: ArchiveType, zpass: string | undefined, dir: string, signal?: AbortSignal): Promise<Map<string, string>> {
  const r = await run7z(['x', '-bd', '-y', '-aou', `-t${type}`, `-p${zpass ?? ''}`, `-o${dir}`, '--', path], signal);
  const failed = new Map<string, string>();
  await renameLegacyNames(dir);
  if (r.code === 0) return failed;
  if (WRONG_PASSWORD.test(`${r.stderr}\n${r.stdout}`)) throw passwordError(zpass);
  for (const line of `${r.stderr}\n${r.stdout}`.split('\n')) {
    const m = /^ERROR: (.+?) : (.+)$/.exec(line.trim());
    if (m && m[2] !== path) failed.set(m[2]!, hidePaths(m[1]!, [path, dir]));
  }
  if (failed.size === 0) throw voxdexError('BAD_ARCHIVE', `The ${type} archive cannot be extracted (${errorLines(r, [path, dir]) || `7z exit code ${r.code}`}). Send a complete, valid archive.`);
  return failed;
}
