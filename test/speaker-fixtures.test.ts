/** The speaker tests' real voices (test/fixtures/speaker-calls.ts): a missing one fails those tests, it never skips them. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { missingVoices } from './fixtures/speaker-calls.js';

const t = suite('speaker fixtures');

t('the real-voice tests fail, never skip, when a voice is missing (issue 33 item 12)', () => {
  assert.equal(missingVoices('/nonexistent-sounds', '/nonexistent-librivox'), [
    '/nonexistent-sounds/en_US_f_Allison', '/nonexistent-sounds/fr_CA_f_June', '/nonexistent-sounds/it_IT_m_Carlo', '/nonexistent-sounds/ru_RU_f_IvrvoiceRU', '/nonexistent-librivox',
  ]);
  assert.equal(missingVoices(), [], 'this machine has every voice (bash scripts/apt-packages.sh test)');
  // Every real-voice test starts by requiring them; none returns early.
  const source = ['./speakers.test.ts', './speakers-crosstalk.test.ts'].map((f) => readFileSync(fileURLToPath(new URL(f, import.meta.url)), 'utf8')).join('\n');
  assert.is((source.match(/^\s+requireVoices\(\);$/gm) ?? []).length, 8);
  assert.not.match(source, new RegExp(['if \\(!voices', 'Available'].join('')));
});

t.run();
