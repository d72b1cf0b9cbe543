/**
 * Pronunciations in the aligner's phone set (the 39 CMU phones, no stress): the PocketSphinx
 * dictionary (cmudict) for the words it has, and letter-to-sound rules for the rest — flite's (Debian's
 * `flite`, a runtime package already: CMU's own rules trained on cmudict), one call per new word
 * (≈ 30 ms), cached per thread. Only vocabulary phrases are given to flite (a word heard in a call
 * never leaves the process), and on its standard input — an anonymous in-memory file — never on its
 * command line, which any local user can read in the process list. Used by the custom vocabulary's acoustic check (moonshine/phrase-verify.ts),
 * where invented product names ("Zentrix") are never in the dictionary.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, readFileSync, writeSync } from 'node:fs';
import { loadBinding } from './binding.js';

/** A pronunciation: CMU phones, upper case ("Z EH N T R IH K S"). */
export type Phones = readonly string[];

const PHONES = new Set('AA AE AH AO AW AY B CH D DH EH ER EY F G HH IH IY JH K L M N NG OW OY P R S SH T TH UH UW V W Y Z ZH'.split(' '));
/** flite's phones that cmudict writes otherwise. */
const FLITE: Record<string, string> = { AX: 'AH', AXR: 'ER' };

const dictionaries = new Map<string, ReadonlyMap<string, Phones[]>>();

/** A PocketSphinx dictionary: word (lower case, variants "word(2)" folded) → its pronunciations. Read once per thread. */
export function readDictionary(file: string): ReadonlyMap<string, Phones[]> {
  let dict = dictionaries.get(file);
  if (dict) return dict;
  const m = new Map<string, Phones[]>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const parts = line.trim().split(/\s+/);
    if (parts.length < 2) continue;
    const word = parts[0]!.replace(/\(\d+\)$/, '').toLowerCase();
    const phones = parts.slice(1);
    const list = m.get(word);
    if (list) list.push(phones);
    else m.set(word, [phones]);
  }
  dictionaries.set(file, (dict = m));
  return dict;
}

const FLITE_BIN = '/usr/bin/flite';
const lts = new Map<string, Phones | null>();

/** Whether letter-to-sound rules are installed (flite). */
export const hasLetterToSound = (): boolean => existsSync(FLITE_BIN);

/**
 * A word's pronunciation by letter-to-sound rules (flite: `-f /dev/stdin -ps none` prints the phones
 * and synthesizes nothing), or undefined when it has no letters or flite is missing. Only letters
 * and apostrophes reach flite, on its standard input.
 */
export function letterToSound(word: string): Phones | undefined {
  const clean = word.toLowerCase().replace(/[^a-z']/g, '');
  if (!/[a-z]/.test(clean)) return undefined;
  if (lts.has(clean)) return lts.get(clean) ?? undefined;
  let phones: Phones | null = null;
  if (hasLetterToSound()) {
    try {
      // flite reads a file (it reopens /dev/stdin): a pipe reads as empty, a memfd does not.
      const fd = loadBinding().memoryFile('voxdex-lts');
      let out: string;
      try {
        writeSync(fd, `${clean}\n`);
        out = execFileSync(FLITE_BIN, ['-voice', 'kal', '-f', '/dev/stdin', '-ps', 'none'], { encoding: 'utf8', timeout: 5000, stdio: [fd, 'pipe', 'ignore'] });
      } finally {
        closeSync(fd);
      }
      const ps = out
        .trim()
        .split(/\s+/)
        .map((p) => p.replace(/\d$/, '').toUpperCase())
        .map((p) => FLITE[p] ?? p)
        .filter((p) => p !== 'PAU' && p !== '');
      phones = ps.length > 0 && ps.every((p) => PHONES.has(p)) ? ps : null;
    } catch {
      phones = null;
    }
  }
  if (lts.size >= 10_000) lts.delete(lts.keys().next().value!);
  lts.set(clean, phones);
  return phones ?? undefined;
}

/**
 * A word's pronunciations: the dictionary's, else (with `guess`: vocabulary words only, never words
 * heard in a call) letter-to-sound's, else none.
 */
export function pronunciations(word: string, dict: ReadonlyMap<string, Phones[]>, guess = false): Phones[] {
  const w = word.toLowerCase().replace(/^[^\p{L}']+|[^\p{L}']+$/gu, '');
  const known = dict.get(w);
  if (known) return known;
  const guessed = guess ? letterToSound(w) : undefined;
  return guessed ? [guessed] : [];
}
