/**
 * Moonshine's output → written words with confidences → alignment slots.
 *
 * The model writes cased, punctuated text with numerals ("Press 5, then $25."). voxdex's transcripts
 * hold spoken words in lower case, one word per event (src/text/numbers.ts): punctuation goes, a
 * numeral becomes the readings it may have been said as (forced alignment picks one against the
 * audio), British spellings become American ones (the registry's models are US English), a few
 * abbreviations are spelled out. Each written word also keeps its written form (`display`: case,
 * punctuation, numerals), which the events carry to the readable-text stage (src/readable/).
 */
import { DIGIT_WORDS, hasDigit, numberReadings } from '../../text/numbers.js';
import type { DecodedToken } from './model.js';
import type { Tokenizer } from './tokenizer.js';

export interface WrittenWord {
  /** The word as the model wrote it, lower-cased, punctuation stripped ("25", "metres", "don't"). */
  text: string;
  /**
   * Ways it may have been said, likeliest first; each a list of spoken words, a position may offer
   * choices "zero|oh". Empty for a word with nothing to say (a stray symbol).
   */
  readings: string[][];
  /** Product of the probabilities of the tokens that wrote it. */
  confidence: number;
  /** How the custom vocabulary spells it ("Zentrix"): the transcript writes this instead of the spoken form. */
  spelled?: string;
  /**
   * The word as the model wrote it, case and punctuation kept ("Hello,", "$25.", "8:45pm"); '' for
   * the later pieces of one written word split in several ("rock&roll"); absent when unknown.
   */
  display?: string;
}

const SPELLING: Record<string, string> = {
  metre: 'meter', metres: 'meters', centre: 'center', centres: 'centers', colour: 'color', colours: 'colors',
  favour: 'favor', favourite: 'favorite', honour: 'honor', labour: 'labor', neighbour: 'neighbor', behaviour: 'behavior',
  organise: 'organize', organised: 'organized', realise: 'realize', realised: 'realized', recognise: 'recognize',
  cheque: 'check', cheques: 'checks', programme: 'program', programmes: 'programs', theatre: 'theater', litre: 'liter',
  litres: 'liters', kilometre: 'kilometer', kilometres: 'kilometers', grey: 'gray', travelling: 'traveling',
  travelled: 'traveled', cancelled: 'canceled', cancelling: 'canceling', catalogue: 'catalog', analyse: 'analyze',
  apologise: 'apologize', licence: 'license', defence: 'defense', offence: 'offense', enrol: 'enroll', practise: 'practice',
};
const ABBREVIATIONS: Record<string, string[]> = {
  mr: ['mister'], mrs: ['missus'], ms: ['miss'], dr: ['doctor'], '&': ['and'], '+': ['plus'], '%': ['percent'],
  '@': ['at'], ok: ['okay'],
};
const DIGIT_SET = new Set<string>(DIGIT_WORDS);

/** One written word's spoken readings. */
export function readingsOf(text: string): string[][] {
  if (hasDigit(text)) return numberReadings(text).map((r) => r.map((w) => (w === 'zero' ? 'zero|oh' : w)));
  const symbol = ABBREVIATIONS[text];
  if (symbol) return [symbol];
  const bare = text.replace(/^[^\p{L}\p{N}']+|[^\p{L}\p{N}']+$/gu, '').replace(/^'+|'+$/g, '');
  if (bare === '') return [];
  const abbr = ABBREVIATIONS[bare];
  if (abbr) return [abbr];
  const word = SPELLING[bare] ?? bare;
  // "twenty-five", "e-mail", "check-in": the whole word if the dictionary has it, else its parts.
  if (/[^\p{L}\p{N}']/u.test(word)) {
    const parts = word.split(/[^\p{L}\p{N}']+/u).filter(Boolean).map((p) => SPELLING[p] ?? p);
    return [[word], parts];
  }
  return [[word]];
}

/**
 * Splits the token sequence into words (a piece starting with "▁" begins one) and normalizes each.
 * A piece's text may hold several written words ("5,"), and one written word may span pieces.
 */
export function writtenWords(tokens: readonly DecodedToken[], tokenizer: Tokenizer): WrittenWord[] {
  const groups: DecodedToken[][] = [];
  for (const t of tokens) {
    const p = tokenizer.piece(t.id);
    const starts = p[0] === 0xe2 && p[1] === 0x96 && p[2] === 0x81; // UTF-8 of "▁"
    if (starts || groups.length === 0) groups.push([]);
    groups[groups.length - 1]!.push(t);
  }
  const out: WrittenWord[] = [];
  /** Written symbols with nothing to say ("—", "...") before the first word, kept for its display. */
  let pending = '';
  for (const g of groups) {
    const written = tokenizer.decode(g.map((t) => t.id));
    const confidence = Math.exp(g.reduce((s, t) => s + t.logprob, 0));
    for (const display of written.split(/\s+/).filter(Boolean)) {
      const words = splitSymbols(display.toLowerCase()).flatMap((piece) => {
        const readings = readingsOf(piece);
        return readings.length > 0 ? [{ text: piece, readings, confidence }] : [];
      });
      if (words.length === 0) {
        // A stray symbol: shown beside the word before it (or the next one), never spoken.
        const prev = [...out].reverse().find((w) => w.display !== '');
        if (prev?.display !== undefined) prev.display += ` ${display}`;
        else pending += `${display} `;
        continue;
      }
      words.forEach((w, i) => out.push({ ...w, display: i === 0 ? pending + display : '' }));
      pending = '';
    }
  }
  return out;
}

/** The written form of a word the vocabulary spells: its letters replaced, its punctuation kept ("zentrix," → "Zentrix,"). */
export function spelledDisplay(display: string, spelled: string): string {
  const m = /^([^\p{L}\p{N}]*)(.*?)([^\p{L}\p{N}]*)$/u.exec(display)!;
  return `${m[1]}${spelled}${m[3]}`;
}

/** "5," → ["5"], "yes/no" → ["yes", "no"], "$25" stays, "rock&roll" → ["rock", "&", "roll"]. */
function splitSymbols(part: string): string[] {
  if (hasDigit(part)) return [part.replace(/[,;:!?"]+$/, '').replace(/\.$/, '')];
  return part.split(/(&|\+|\/)/).filter((p) => p !== '' && p !== '/');
}

/** The spoken words of a reading as they go into a transcript: "zero|oh" → the word that was said, or its first choice. */
export function spokenWord(position: string, said?: string): string {
  const choices = position.split('|');
  // Digit zero is always written "zero" (whether said "oh" or "zero"): one searchable form.
  if (said !== undefined && choices.includes(said)) return DIGIT_SET.has(choices[0]!) ? choices[0]! : said;
  return choices[0]!;
}
