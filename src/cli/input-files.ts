/**
 * `voxdex transcribe`'s edge: each named file is checked before any model loads, and what is wrong
 * with one is a single line naming the file and the problem (no stack trace): missing, unreadable,
 * a directory, or content voxdex does not take. On a terminal the command says it is loading the
 * models before the first progress bar; piped, it writes nothing but the problems.
 */
import { closeSync, fstatSync, openSync } from 'node:fs';
import { mediaOfFile } from '../audio/media.js';
import type { TranscodeConfig } from '../config.js';
import { toVoxdexError } from '../errors.js';

const ERRNO: Record<string, string> = {
  ENOENT: 'no such file',
  ENOTDIR: 'no such file (a part of the path is not a folder)',
  EACCES: 'cannot be read (permission denied)',
  EPERM: 'cannot be read (permission denied)',
  EISDIR: 'is a folder, not a recording',
  ELOOP: 'cannot be read (too many symbolic links)',
  ENAMETOOLONG: 'cannot be read (the name is too long)',
};

/** What is wrong with `file` as an input, in a few words; undefined when it can be transcribed. */
export function inputFileProblem(file: string, transcode: TranscodeConfig): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    return ERRNO[code] ?? `cannot be read (${code || (err as Error).message})`;
  }
  try {
    if (fstatSync(fd).isDirectory()) return ERRNO.EISDIR;
  } finally {
    closeSync(fd);
  }
  try {
    mediaOfFile(file, transcode);
    return undefined;
  } catch (err) {
    return toVoxdexError(err).message;
  }
}

/** The files that can be transcribed; one `voxdex: FILE: problem` line on `err` for each of the others. */
export function checkInputFiles(files: string[], transcode: TranscodeConfig, err: (text: string) => void): string[] {
  return files.filter((file) => {
    const problem = inputFileProblem(file, transcode);
    if (problem !== undefined) err(`voxdex: ${file}: ${problem}\n`);
    return problem === undefined;
  });
}
