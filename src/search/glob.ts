/**
 * Wildcard words (`*`: any run, also empty; `?`: exactly one character) matched without
 * backtracking. The pattern is split at its stars into segments; the first must be a prefix, the
 * last a suffix, and each one between is found leftmost after the one before — the leftmost place
 * is always as good as any later one, so no choice is ever revisited. A test costs at most the
 * word's length times the pattern's (native `indexOf` for segments without `?`), never more: the
 * RegExp this replaces (`^.*..*..*q$`) backtracked polynomially in the word's length, with the
 * number of stars as the exponent, and one long numeral in the index froze the server (issue 24.8).
 *
 * Characters are code points, as the RegExp's `u` flag had them.
 */

/** One run of pattern characters between stars; `?` stands for any one character. */
interface Segment {
  chars: string[];
  /** The segment as text when it holds no `?` (searched with indexOf). */
  literal?: string;
}

export interface Glob {
  readonly pattern: string;
  test(word: string): boolean;
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** The word as code points (a string when it has no surrogate pair: indexing a string is cheaper). */
function codePoints(s: string): string | string[] {
  return SURROGATE.test(s) ? Array.from(s) : s;
}

function segment(text: string): Segment {
  const chars = Array.from(text);
  return text.includes('?') ? { chars } : { chars, literal: text };
}

/** Does `seg` match `w` at `at` (in code points)? */
function matchesAt(seg: Segment, w: string | string[], at: number): boolean {
  const c = seg.chars;
  for (let k = 0; k < c.length; k++) if (c[k] !== '?' && c[k] !== w[at + k]) return false;
  return true;
}

/** The leftmost place in [from, to − length] where `seg` matches, or −1. */
function find(seg: Segment, w: string | string[], from: number, to: number): number {
  const last = to - seg.chars.length;
  if (seg.literal !== undefined && typeof w === 'string') {
    const at = w.indexOf(seg.literal, from);
    return at >= 0 && at <= last ? at : -1;
  }
  for (let i = from; i <= last; i++) if (matchesAt(seg, w, i)) return i;
  return -1;
}

/** Compiles a query word with `*` / `?` wildcards (`*` runs already collapsed or not). */
export function compileGlob(pattern: string): Glob {
  const parts = pattern.split('*');
  if (parts.length === 1) {
    const whole = segment(pattern);
    return {
      pattern,
      test(word) {
        const w = codePoints(word);
        return w.length === whole.chars.length && matchesAt(whole, w, 0);
      },
    };
  }
  const first = segment(parts[0]!);
  const last = segment(parts[parts.length - 1]!);
  const middle = parts.slice(1, -1).filter((p) => p !== '').map(segment);
  const minLength = first.chars.length + last.chars.length + middle.reduce((n, s) => n + s.chars.length, 0);
  return {
    pattern,
    test(word) {
      const w = codePoints(word);
      if (w.length < minLength) return false;
      const end = w.length - last.chars.length;
      if (!matchesAt(first, w, 0) || !matchesAt(last, w, end)) return false;
      let at = first.chars.length;
      for (const seg of middle) {
        const found = find(seg, w, at, end);
        if (found < 0) return false;
        at = found + seg.chars.length;
      }
      return true;
    },
  };
}
