/**
 * Custom-vocabulary benchmark material: invented product names in call-centre sentences, read by
 * synthetic voices, split into a tuning half (the names, sentences and voices the vocabulary's
 * settings were tuned on) and a held-out half (other names, other sentences, other voices), and the
 * names a real voice says in the Asterisk prompts.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { decodeWav } from '../../src/stages/decode.js';
import type { DecodedAudio } from '../../src/types.js';

export interface Voice {
  name: string;
  synth: (text: string, out: string) => void;
}

const espeak = (v: string): Voice => ({ name: `espeak-ng ${v}`, synth: (t, o) => execFileSync('espeak-ng', ['-v', v, '-s', '150', '-w', o, t]) });
const flite = (v: string): Voice => ({ name: `flite ${v}`, synth: (t, o) => execFileSync('flite', ['-voice', v, '-t', t, '-o', o]) });
const festival = (v: string): Voice => ({ name: `festival ${v}`, synth: (t, o) => execFileSync('text2wave', ['-eval', `(voice_${v})`, '-o', o], { input: t }) });

/** The voices the vocabulary was tuned on (those of the first measurements). */
export const TUNE_VOICES: Voice[] = [espeak('en-us'), flite('kal'), festival('kal_diphone')];
/** Voices nothing was tuned on: a female US voice, a Scottish male, British RP rules. */
export const HELDOUT_VOICES: Voice[] = [flite('slt'), flite('awb'), espeak('en-gb-x-rp')];

export const TUNE_SENTENCES: Array<[string, string]> = [
  ['Zentrix', 'I would like to upgrade my Zentrix plan today.'],
  ['Quorvane', 'The Quorvane router keeps dropping the connection.'],
  ['Blumetric', 'Can you send me the Blumetric invoice again?'],
  ['Kestrify', 'We installed Kestrify on every laptop last week.'],
  ['Velloria', 'My Velloria account was charged twice this month.'],
  ['Draxium', 'The Draxium battery does not hold a charge.'],
  ['Omnivox', 'Please cancel the Omnivox subscription for my husband.'],
  ['Lumora Cloud', 'Our files are stored in Lumora Cloud now.'],
  ['Fernwick', 'I am calling about the Fernwick warranty.'],
  ['Syntara', 'The Syntara app crashes when I log in.'],
  ['Paxilon', 'Is the Paxilon service available in my area?'],
  ['Trivendi', 'I need to reset the password for Trivendi.'],
];
export const TUNE_NAMES = TUNE_SENTENCES.map(([n]) => n);

export const HELDOUT_SENTENCES: Array<[string, string]> = [
  ['Norvanta', 'My Norvanta bill is higher than last month.'],
  ['Glimmerly', 'I ordered a Glimmerly lamp and it never arrived.'],
  ['Tessaro', 'Could you transfer me to the Tessaro support team?'],
  ['Brightwave Mobile', 'I switched to Brightwave Mobile in March.'],
  ['Quintara', 'The Quintara printer shows an error code.'],
  ['Zolvex', 'Is my Zolvex order ready to ship?'],
  ['Hyperlume', 'We bought the Hyperlume screen for the office.'],
  ['Cardivio', 'My mother uses the Cardivio heart monitor.'],
  ['Pellatrix', 'The Pellatrix update deleted my contacts.'],
  ['Obrion', 'I want to close my Obrion savings account.'],
  ['Virelda', 'Virelda sent me a second bill by mistake.'],
  ['Maxtrom', 'How long is the warranty on the Maxtrom drill?'],
];
export const HELDOUT_NAMES = HELDOUT_SENTENCES.map(([n]) => n);

/** Names a real voice (the Asterisk prompts' speaker) says: [prompt, name, tuning half]. */
export const REAL_NAMES: Array<{ prompt: string; name: string; tune: boolean }> = [
  { prompt: 'demo-abouttotry', name: 'Digium', tune: true },
  { prompt: 'demo-instruct', name: 'Digium', tune: true },
  { prompt: 'basic-pbx-ivr-main', name: 'Waldo', tune: true },
  { prompt: 'demo-nogo', name: 'Digium', tune: false },
  { prompt: 'spy-unistim', name: 'Unistim', tune: false },
  { prompt: 'spy-dahdi', name: 'DAHDI', tune: false },
  { prompt: 'vm-newuser', name: 'Comedian Mail', tune: false },
];

/** A sentence read by a voice: 16 kHz, or through a phone line (300–3400 Hz, 8 kHz mu-law). */
export async function synthesize(voice: Voice, text: string, tmp: string, tag: string, tel: boolean): Promise<DecodedAudio> {
  const raw = path.join(tmp, `${voice.name.replace(/\W+/g, '-')}-${tag}.wav`);
  voice.synth(text, raw);
  const out = raw.replace(/\.wav$/, tel ? '-tel.wav' : '-wb.wav');
  execFileSync('sox', ['-V1', raw, ...(tel ? ['-r', '8000', '-e', 'u-law', '-b', '8'] : ['-r', '16000', '-e', 'signed', '-b', '16']), '-c', '1', out, ...(tel ? ['sinc', '300-3400'] : [])]);
  return decodeWav(out);
}
