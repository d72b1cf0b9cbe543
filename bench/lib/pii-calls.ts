/**
 * The generated calls of bench/pii.ts as scripts: who says what, in which voice, and which parts are
 * personal data of which kind. Pure (seeded): the same call number gives the same script.
 *
 * Channel 0 is the agent, channel 1 the caller. A part is text for a synthetic voice or a list of real
 * recordings: Asterisk's Allison saying letters ("s m i t h", "at", "dot"), digits, months and
 * ordinals (dates of birth), and LibriVox readers (pocketsphinx-testdata) for ordinary talk. Names come from bench/lib/pii-names.ts (522 names of many origins).
 */
import { luhn } from '../../src/numbers/lexicon.js';
import { FIRST_NAMES, LAST_NAMES } from './pii-names.js';

export const SYNTHETIC_VOICES = ['espeak-us', 'flite-slt', 'festival-kal', 'flite-awb', 'espeak-f', 'flite-rms', 'flite-kal', 'espeak-gb'] as const;
export type SyntheticVoice = (typeof SYNTHETIC_VOICES)[number];
/** The agents' voices: those the ASR hears best (an agent's question is context; the caller's words are measured). */
export const AGENT_VOICES: readonly SyntheticVoice[] = ['flite-slt', 'festival-kal', 'espeak-us', 'flite-awb', 'flite-rms'];
export type EntityKind = 'name' | 'address' | 'email' | 'phone' | 'dob' | 'bank' | 'pin' | 'id';

/** A part of a turn: said by a synthetic voice, or real recordings (file paths) played in a row. */
export type Part = { text: string; voice: SyntheticVoice; kind?: EntityKind } | { real: string[]; voice: 'allison' | 'librivox'; kind?: EntityKind; text: string };
export interface Turn {
  channel: 0 | 1;
  parts: Part[];
}

export const ALLISON = '/usr/share/asterisk/sounds/en_US_f_Allison';
export const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox';

const DIGIT_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth', 'eleventh', 'twelfth', 'thirteenth',
  'fourteenth', 'fifteenth', 'sixteenth', 'seventeenth', 'eighteenth', 'nineteenth', 'twentieth'];
const STREETS = ['maple', 'oak', 'cedar', 'elm', 'washington', 'lincoln', 'highland', 'sunset', 'park', 'lakeview', 'willow', 'church', 'mill', 'river', 'hillcrest', 'jefferson'];
const STREET_TYPES = ['street', 'avenue', 'road', 'drive', 'lane', 'boulevard', 'court', 'way', 'place'];
const CITIES: Array<[string, string]> = [['springfield', 'illinois'], ['portland', 'oregon'], ['austin', 'texas'], ['columbus', 'ohio'], ['denver', 'colorado'],
  ['madison', 'wisconsin'], ['raleigh', 'north carolina'], ['tucson', 'arizona'], ['albany', 'new york'], ['fresno', 'california'], ['tampa', 'florida'], ['boise', 'idaho']];
const DOMAINS = ['gmail', 'yahoo', 'hotmail', 'outlook', 'icloud', 'aol'];

/** Ordinary talk: places, dates, products, other people (not named). Harmless words, to be kept. */
const TALK = [
  'i bought a samsung galaxy phone from your store in chicago last month',
  'my manager said the package would arrive on march third',
  'the technician came out on tuesday afternoon and left after an hour',
  'we are flying to denver on friday so i need this sorted before then',
  'your order of three items ships on the twenty first',
  'the iphone charger stopped working after two weeks',
  'my daughter uses the amazon echo in the kitchen every day',
  'the store in dallas was closed when i got there',
  'i watched the whole thing on netflix with my neighbor',
  'the last bill was higher than the one in january',
  'my husband thinks the router is the problem',
  'we moved here from london about five years ago',
  'the lady at the front desk told me to call this number',
  'i have been a customer since two thousand twelve',
  'the warranty runs out at the end of june',
  'i tried the app on my laptop and on the ipad',
];
const LIBRIVOX_TALK = ['0880', '0890', '0920', '0930'];
const LIBRIVOX_TEXT: Record<string, string> = {
  '0880': 'he was not an ill disposed young man',
  '0890': 'unless to be rather cold hearted and rather selfish is to be ill disposed',
  '0920': 'had he married a more a amiable woman he might have been made still more respectable than he was',
  '0930': 'he might even have been made amiable himself',
};

export function rng(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

const letters = (word: string) => [...word].map((c) => `${ALLISON}/letters/${c}.wav`);
const digitFiles = (ds: string) => [...ds].map((d) => `${ALLISON}/digits/${d}.wav`);
const spell = (word: string) => [...word].join(' ');
const sayDigits = (ds: string) => [...ds].map((d) => DIGIT_WORDS[Number(d)]).join(' ');

function abaNumber(rnd: () => number): string {
  for (;;) {
    const d = Array.from({ length: 8 }, () => Math.floor(rnd() * 10)).join('');
    const w = [3, 7, 1, 3, 7, 1, 3, 7];
    const s = [...d].reduce((a, c, i) => a + Number(c) * w[i]!, 0);
    const check = (10 - (s % 10)) % 10;
    if (d[0] !== '0' || d[1] !== '0') return d + check;
  }
}

/** A digit string that is not a Luhn-valid card (an account number should not read as a card). */
function accountNumber(rnd: () => number, n: number): string {
  for (;;) {
    const d = String(1 + Math.floor(rnd() * 9)) + Array.from({ length: n - 1 }, () => Math.floor(rnd() * 10)).join('');
    if (!luhn(d)) return d;
  }
}

/** Year said as people say it: "nineteen eighty five", "two thousand three". */
function sayYear(y: number): { text: string; files: string[] } {
  if (y >= 2000) return { text: `two thousand ${DIGIT_WORDS[y - 2000]}`, files: [`${ALLISON}/digits/2.wav`, `${ALLISON}/digits/thousand.wav`, ...digitFiles(String(y - 2000))] };
  const tens = y - 1900;
  const t = Math.floor(tens / 10) * 10;
  const u = tens % 10;
  const tensWord = ['', 'ten', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'][t / 10]!;
  return { text: `nineteen ${tensWord}${u ? ` ${DIGIT_WORDS[u]}` : ''}`, files: [`${ALLISON}/digits/19.wav`, `${ALLISON}/digits/${t}.wav`, ...(u ? [`${ALLISON}/digits/${u}.wav`] : [])] };
}

export function callScript(n: number): Turn[] {
  const rnd = rng(7000 + n * 7919);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const agentVoice = AGENT_VOICES[n % AGENT_VOICES.length]!;
  const callerVoice = SYNTHETIC_VOICES[(n + 3) % SYNTHETIC_VOICES.length]!;
  const turns: Turn[] = [];
  const agent = (text: string, kind?: EntityKind) => turns.push({ channel: 0, parts: [{ text, voice: agentVoice, ...(kind ? { kind } : {}) }] });
  const caller = (...parts: Part[]) => turns.push({ channel: 1, parts });
  const say = (text: string, kind?: EntityKind): Part => ({ text, voice: callerVoice, ...(kind ? { kind } : {}) });
  const real = (files: string[], text: string, kind?: EntityKind): Part => ({ real: files, voice: 'allison', text, ...(kind ? { kind } : {}) });
  const talk = () => (n % 4 === 2 ? caller({ real: [`${LIBRIVOX}/sense_and_sensibility_01_austen_64kb-${LIBRIVOX_TALK[n % 4]}.wav`], voice: 'librivox', text: LIBRIVOX_TEXT[LIBRIVOX_TALK[n % 4]!]! }) : caller(say(pick(TALK))));

  const first = pick(FIRST_NAMES);
  const last = pick(LAST_NAMES);
  const agentName = pick(FIRST_NAMES);
  if (n % 6 === 0) {
    turns.push({ channel: 0, parts: [{ text: 'thank you for calling acme this is', voice: agentVoice }, { text: agentName, voice: agentVoice, kind: 'name' }, { text: 'how can i help', voice: agentVoice }] });
  } else agent('thank you for calling acme how can i help you today');
  if (n % 3 === 1) caller(say('hi my name is'), say(`${first} ${last}`, 'name'), say('and i am calling about my account'));
  else {
    caller(say('hi i am calling about my account'));
    agent(n % 2 ? 'sure can i have your full name please' : 'okay who am i speaking with');
    if (n % 5 === 3) {
      caller(say('it is'), say(`${first} ${last}`, 'name'));
      caller(say('no sorry'), say(`${first} ${pick(LAST_NAMES)}`, 'name'));
    } else caller(say('yes it is'), say(`${first} ${last}`, 'name'));
  }
  if (n % 3 === 0) {
    agent('can you spell the last name for me');
    caller(real(letters(last.replace(/[^a-z]/g, '')), spell(last), 'name'));
  }
  talk();
  if (n % 4 === 1) {
    const rel = pick(['wife', 'husband', 'son', 'daughter', 'brother', 'sister']);
    caller(say(`my ${rel}`), say(pick(FIRST_NAMES), 'name'), say('usually pays the bill'));
  }

  if (n % 2 === 0) {
    const num = 10 + Math.floor(rnd() * 980);
    const street = `${pick(STREETS)} ${pick(STREET_TYPES)}`;
    const [city, state] = pick(CITIES);
    const zip = String(10000 + Math.floor(rnd() * 89999));
    const numWords = num < 100 ? sayTens(num) : `${DIGIT_WORDS[Math.floor(num / 100)]} ${sayTens(num % 100) || 'hundred'}`;
    agent('and what is the address on the account');
    if (n % 4 === 0) {
      caller(say('it is'), say(`${numWords} ${street}`, 'address'));
      agent('okay and the city');
      caller(say(`${city} ${state}`, 'address'));
      agent('and the zip code');
      caller(real(digitFiles(zip), sayDigits(zip), 'address'));
    } else caller(say('sure it is'), say(`${numWords} ${street} ${city} ${state}`, 'address'), say(sayDigits(zip), 'address'));
  }
  if (n % 2 === 1) {
    const domain = pick(DOMAINS);
    agent('can i get an email address for the receipt');
    if (n % 3 === 0) caller(real([...letters(first), `${ALLISON}/letters/at.wav`, ...letters(domain), `${ALLISON}/letters/dot.wav`, ...letters('com')], `${spell(first)} at ${spell(domain)} dot c o m`, 'email'));
    else caller(say('yes it is'), say(`${first} dot ${last} at ${domain} dot com`, 'email'));
  }
  talk();
  if (n % 5 === 0 || n % 5 === 2) {
    const phone = String(2 + Math.floor(rnd() * 8)) + Array.from({ length: 9 }, () => Math.floor(rnd() * 10)).join('');
    agent('what is the best number to reach you on');
    if (n % 2) {
      caller(real(digitFiles(phone.slice(0, 3)), sayDigits(phone.slice(0, 3)), 'phone'));
      agent('okay');
      caller(real(digitFiles(phone.slice(3, 6)), sayDigits(phone.slice(3, 6)), 'phone'));
      agent('yes');
      caller(real(digitFiles(phone.slice(6)), sayDigits(phone.slice(6)), 'phone'));
    } else caller(real(digitFiles(phone), sayDigits(phone), 'phone'));
  }
  if (n % 5 === 1 || n % 5 === 3) {
    const month = Math.floor(rnd() * 12);
    const day = Math.floor(rnd() * 20);
    const year = sayYear(1940 + Math.floor(rnd() * 66));
    agent('for security can you confirm your date of birth');
    if (n % 2) caller(real([`${ALLISON}/digits/mon-${month}.wav`, `${ALLISON}/digits/h-${day + 1}.wav`, ...year.files], `${MONTHS[month]} ${ORDINALS[day]} ${year.text}`, 'dob'));
    else caller(say('it is the'), say(`${ORDINALS[day]} of ${MONTHS[month]} ${year.text}`, 'dob'));
  }
  if (n % 10 < 3) {
    const routing = abaNumber(rnd);
    const account = accountNumber(rnd, 8 + Math.floor(rnd() * 5));
    agent('to set up the direct debit i need the routing number');
    caller(real(digitFiles(routing), sayDigits(routing), 'bank'));
    agent('and the account number');
    caller(real(digitFiles(account), sayDigits(account), 'bank'));
  }
  if (n % 4 === 3) {
    const pin = Array.from({ length: 4 }, () => Math.floor(rnd() * 10)).join('');
    agent('can you confirm the four digit pin on the account');
    caller(real(digitFiles(pin), sayDigits(pin), 'pin'));
  }
  if (n % 10 >= 7) {
    const l = 'abcdefghjklmnprstuvwxyz';
    const id = l[Math.floor(rnd() * l.length)]! + l[Math.floor(rnd() * l.length)]! + Array.from({ length: 7 }, () => Math.floor(rnd() * 10)).join('');
    agent(n % 2 ? 'and your passport number please' : 'and your driver license number');
    caller(real([...letters(id.slice(0, 2)), ...digitFiles(id.slice(2))], `${spell(id.slice(0, 2))} ${sayDigits(id.slice(2))}`, 'id'));
  }
  agent('thank you i have updated that for you');
  caller(say(pick(['great thanks for your help', 'okay thank you very much', 'perfect that is all i needed'])));
  return turns;
}

function sayTens(x: number): string {
  if (x === 0) return '';
  if (x < 10) return DIGIT_WORDS[x]!;
  const teens = ['ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
  if (x < 20) return teens[x - 10]!;
  const tens = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'][Math.floor(x / 10)]!;
  return x % 10 ? `${tens} ${DIGIT_WORDS[x % 10]}` : tens;
}
