/**
 * The custom vocabulary's verified pass (src/asr/moonshine/phrase-verify.ts): letter-to-sound
 * pronunciations, which spans sound like a phrase, and the aligner's choice between the words heard
 * and the phrase (with its penalty) on real speech.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { toNativeDesc } from '../src/asr/binding.js';
import { loadPocketSphinx } from '../src/asr/engines/pocketsphinx.js';
import { loadModelRegistry } from '../src/asr/models.js';
import { findCandidates, joinedPronunciations, phoneDistance, verifyCandidates, type PhraseSounds } from '../src/asr/moonshine/phrase-verify.js';
import { readingsOf } from '../src/asr/moonshine/words.js';
import { letterToSound, pronunciations, readDictionary } from '../src/asr/pronounce.js';
import { loadConfig } from '../src/config.js';

const v = suite('vocabulary: verified pass');
const registry = loadModelRegistry(loadConfig({}).modelsFile);
const aligner = registry.aligner(registry.resolve('en-us-moonshine', 16000), 16000)!;
const dict = readDictionary(aligner.dict);
const pronounce = (w: string) => pronunciations(w, dict);
const sounds = (phrase: string): PhraseSounds => {
  const words = phrase.toLowerCase().split(' ');
  return { words, phones: joinedPronunciations(words.map((w) => pronunciations(w, dict, true))) };
};

v('invented names get letter-to-sound phones in the CMU set; dictionary words keep cmudict\'s', () => {
  assert.equal(letterToSound('Zentrix'), ['Z', 'EH', 'N', 'T', 'R', 'IH', 'K', 'S']);
  assert.equal(letterToSound('Syntara'), ['S', 'IH', 'N', 'T', 'AA', 'R', 'AH'], 'flite\'s schwa "ax" is cmudict\'s AH');
  assert.equal(pronounce('metric'), [['M', 'EH', 'T', 'R', 'IH', 'K']]);
  assert.equal(pronounce('zentrix'), [], 'a word heard in a call is never guessed (it would leave the process)');
  assert.equal(pronunciations('zentrix', dict, true), [letterToSound('zentrix')!]);
  assert.equal(pronounce('Cloud,'), [['K', 'L', 'AW', 'D']], 'punctuation aside');
  assert.is(letterToSound('123'), undefined);
  assert.equal(letterToSound('rm;$(x)'), letterToSound('rmx'), 'only letters reach flite');
});

v('phone distance: vowels for vowels and consonants of one manner cost half, a schwa comes and goes for half', () => {
  assert.is(phoneDistance(['B', 'L', 'UW'], ['B', 'L', 'UW']), 0);
  assert.is(phoneDistance(['T', 'EH', 'N'], ['T', 'IH', 'N']), 0.5);
  assert.is(phoneDistance(['T', 'EH', 'N'], ['D', 'EH', 'N']), 0.5);
  assert.is(phoneDistance(['T', 'EH', 'N'], ['S', 'EH', 'N']), 1);
  assert.is(phoneDistance(['S', 'IH', 'N', 'T', 'AA', 'R', 'AH'], ['S', 'IH', 'N', 'T', 'AA', 'R']), 0.5);
  assert.is(phoneDistance([], ['K', 'AE', 'T']), 3);
});

v('candidates: spans that sound like a phrase, closest first, not overlapping, never over digits or a phrase already written', () => {
  const phrases = [sounds('Blumetric'), sounds('Syntara'), sounds('Lumora Cloud')];
  const words = ['send', 'the', 'blue', 'metric', 'invoice', 'to', 'centaur', 'now'];
  const found = findCandidates(words, pronounce, phrases, words.map(() => false), { maxDistance: 0.3, maxCandidates: 8 });
  assert.equal(
    found.map((c) => [words.slice(c.at, c.at + c.length).join(' '), c.phrase]),
    [['blue metric', 0], ['centaur', 1]],
  );
  assert.is(found[0]!.distance, 0, '"blue metric" says Blumetric exactly');
  assert.equal(findCandidates(['blue', 'metric'], pronounce, phrases, [true, false], { maxDistance: 0.3, maxCandidates: 8 }), [], 'a span over a written phrase is left alone');
  const digits = findCandidates(['blue', '5'], pronounce, [sounds('Blufive')], [false, false], { maxDistance: 1, maxCandidates: 8 });
  assert.ok(digits.every((c) => c.at + c.length <= 1), 'digits are never in a candidate');
  assert.equal(findCandidates(words, pronounce, phrases, words.map(() => false), { maxDistance: 0.3, maxCandidates: 1 }).length, 1);
  const twice = ['the', 'quintara', 'printer', 'shows', 'an', 'error'];
  const near = (ws: string[]) => findCandidates(ws, pronounce, [sounds('Quintara')], ws.map(() => false), { maxDistance: 0.6, maxCandidates: 8 });
  assert.equal(near(['the', 'printer', 'shows']).map((c) => c.at), [1], '"printer" sounds like Quintara');
  assert.ok(!near(twice).some((c) => c.at === 2), 'but not right after "Quintara" itself (flite slt wrote "Quintara Quintara")');
});

v('the aligner takes the phrase where the audio says it and the words heard where it does not, the penalty deciding close calls', () => {
  // goforward.raw says "go forward ten meters" (16 kHz). Offered "go forward [then | Tennis] meters",
  // the aligner keeps what was said unless a large bonus is given to the phrase.
  const b = readFileSync(path.join('/usr/share/pocketsphinx/test/data', 'goforward.raw'));
  const samples = new Int16Array(b.buffer, b.byteOffset, b.length / 2);
  // Scores of separate searches compare only with every senone scored and nothing pruned (as bench/vocabulary-tune.ts measures).
  const desc = toNativeDesc(aligner);
  const engine = loadPocketSphinx({ ...desc, options: [...desc.options.filter(([f]) => !f.endsWith('beam')), ['-beam', '1e-300'], ['-pbeam', '1e-300'], ['-wbeam', '1e-300'], ['-compallsen', 'yes']] });
  const abort = new Int32Array(new SharedArrayBuffer(4));
  const written = ['go', 'forward', 'then', 'meters'].map((text) => ({ text, readings: readingsOf(text), confidence: 0.9 }));
  const check = (phrase: string, heard: string, penalty: number) => {
    const words = written.map((w) => w.text);
    words[2] = heard;
    const ws = written.map((w, i) => (i === 2 ? { ...w, text: heard, readings: readingsOf(heard) } : w));
    const c = findCandidates(words, pronounce, [sounds(phrase)], words.map(() => false), { maxDistance: 1, maxCandidates: 8 }).filter((x) => x.at === 2);
    return verifyCandidates(engine, samples, ws, c, [sounds(phrase)], { pronounce: (w) => pronunciations(w, dict, true), inDictionary: (w) => dict.has(w), abort, penalty, measure: true });
  };
  // "ten" was said: offered beside "then", the phrase "Ten" wins without any help.
  const ten = check('Ten', 'then', 0);
  assert.is(ten.accepted.length, 1);
  assert.ok(ten.deltas![0]! > 0, `Δ ${ten.deltas![0]}`);
  // "Tennis" was not said: it loses to "ten" by more than a small bonus, and a bonus larger than its deficit makes it win.
  const tennis = check('Tennis', 'ten', -5);
  assert.is(tennis.accepted.length, 0);
  assert.ok(tennis.deltas![0]! < -5, `Δ ${tennis.deltas![0]}`);
  // One search with both offered decides as the measured difference says.
  assert.is(check('Tennis', 'ten', tennis.deltas![0]! - 2).accepted.length, 1, 'a bonus beyond its deficit lets the phrase through');
  assert.is(check('Tennis', 'ten', tennis.deltas![0]! + 2).accepted.length, 0);
});

v.run();
