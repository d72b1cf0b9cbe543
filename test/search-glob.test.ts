/**
 * src/search/glob.ts: wildcard words matched without backtracking. The same answers as the anchored
 * RegExp it replaces on random patterns and words (letters from a small alphabet, so that matches
 * happen, digits, non-ASCII and astral letters), and the patterns that froze the server (issue
 * 24.8: `?*` pairs against a long numeral, `*a*a*…b` against a run of a's) answered at once.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compileGlob } from '../src/search/glob.js';
import { cpuMark, cpuMsSince } from './fixtures/cpu-budget.js';

const g = suite('search glob');

/** The matcher before: an anchored RegExp. */
function reference(pattern: string): RegExp {
  return new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 'u');
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

g('answers as the RegExp did on 20,000 random patterns and words', () => {
  const r = rng(24);
  const letters = ['a', 'b', 'c', '1', 'é', '𝔞'];
  const pick = (xs: string[]) => xs[Math.floor(r() * xs.length)]!;
  for (let n = 0; n < 20_000; n++) {
    const pattern = Array.from({ length: 1 + Math.floor(r() * 8) }, () => pick([...letters, '*', '?', '?', '*'])).join('');
    const word = Array.from({ length: Math.floor(r() * 10) }, () => pick(letters)).join('');
    assert.is(compileGlob(pattern).test(word), reference(pattern).test(word), `${pattern} ~ ${word}`);
  }
});

g('exact cases: prefix, suffix, inner runs, ? as one code point, no star', () => {
  const cases: Array<[string, string, boolean]> = [
    ['refund*', 'refunds', true],
    ['refund*', 'refun', false],
    ['*ing', 'calling', true],
    ['c*l*ng', 'calling', true],
    ['c*l*ng', 'cling', true],
    ['c*x*ng', 'calling', false],
    ['?', '𝔞', true],
    ['??', '𝔞', false],
    ['caf?', 'café', true],
    ['ab', 'ab', true],
    ['a?', 'ab', true],
    ['a?', 'abc', false],
    ['*', '', true],
    ['a*a', 'a', false],
    ['a*a', 'aa', true],
  ];
  for (const [p, w, want] of cases) assert.is(compileGlob(p).test(w), want, `${p} ~ ${w}`);
});

g('the patterns that backtracked answer at once on long words', () => {
  const numeral = '4'.repeat(5000);
  const as = 'a'.repeat(5000);
  const t0 = cpuMark();
  assert.not.ok(compileGlob(`${'?*'.repeat(40)}q`).test(numeral));
  assert.ok(compileGlob(`${'?*'.repeat(40)}4`).test(numeral));
  assert.not.ok(compileGlob(`${'*a'.repeat(40)}*b`).test(as));
  assert.ok(compileGlob(`${'*a'.repeat(40)}*`).test(as));
  assert.not.ok(compileGlob(`*a${'?'.repeat(30)}b`).test(as));
  // A CPU budget, not a wall time (test/fixtures/cpu-budget.ts): microseconds here; a backtracking match never ends.
  assert.ok(cpuMsSince(t0) < 1000, `took ${cpuMsSince(t0)} ms of CPU`);
});

g.run();
