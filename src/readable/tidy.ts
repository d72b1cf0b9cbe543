/**
 * Tidying of an utterance's written text (docs/readable.md, "Rules, and the case behind each"): what the model's written text
 * sometimes has that a reader stumbles on, put right without adding or removing a word:
 * - the hyphenated spellings of old books ("to-day", "to-morrow", "to-night") in today's form;
 * - "i" as a word ("i", "i'm", "i'll": an event's spoken word) as "I";
 * - a comma doubled (",,", ", ,") once;
 * - a double quote without its partner in the utterance dropped (a quote the model opened in one
 *   stretch of audio and closed in another, or never).
 * Sentence starts are capitalised where the text is put together (utterance-text.ts).
 */

/** The old spellings and today's. */
export const ARCHAIC_SPELLINGS: Readonly<Record<string, string>> = { 'to-day': 'today', 'to-morrow': 'tomorrow', 'to-night': 'tonight' };
const ARCHAIC_WORD = new RegExp(`^(["'“‘(]*)(${Object.keys(ARCHAIC_SPELLINGS).join('|')})(?=$|[^\\p{L}-])`, 'iu');
const LOWER_I = /^(["'“‘(]*)i(?=$|['’](?:m|ll|d|ve|s)\b|[.,?!;:"'”’)]+$)/;

/** One word of the text tidied: "To-day," → "Today,", "i'm" → "I'm"; anything else as it is. */
function tidyWord(token: string): string {
  const archaic = ARCHAIC_WORD.exec(token);
  if (archaic) {
    const [whole, before, old] = archaic as unknown as [string, string, string];
    const modern = ARCHAIC_SPELLINGS[old.toLowerCase()]!;
    return before + (old[0] === old[0]!.toUpperCase() ? modern[0]!.toUpperCase() + modern.slice(1) : modern) + token.slice(whole.length);
  }
  return token.replace(LOWER_I, '$1I');
}

/** The text without the double quotes that have no partner in it (straight quotes pair in order; “ with ”). */
export function balanceQuotes(text: string): string {
  const drop = new Set<number>();
  const straight = [...text.matchAll(/"/g)].map((m) => m.index!);
  if (straight.length % 2 === 1) drop.add(straight[straight.length - 1]!);
  const open: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '“') open.push(i);
    else if (text[i] === '”' && open.pop() === undefined) drop.add(i);
  }
  for (const i of open) drop.add(i);
  if (drop.size === 0) return text;
  return [...text].filter((_, i) => !drop.has(i)).join('').replace(/\s{2,}/g, ' ').trim();
}

/** An utterance's written text tidied (see the module comment). */
export function tidyText(text: string): string {
  const words = text.split(' ').map(tidyWord).join(' ');
  return balanceQuotes(words.replace(/,(\s*,)+/g, ','));
}
