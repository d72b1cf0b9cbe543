/**
 * The words personal-data recognizers read (docs/pii.md): what people say before a name, an address,
 * an email…, the words that end such an answer, spelled letters, street types, states, mail domains.
 * All keys are `wordKey` forms (lower case, punctuation stripped).
 */

const set = (words: string): ReadonlySet<string> => new Set(words.trim().split(/\s+/));

/**
 * Words that never belong to a name, an address's street name or a city: closed-class words,
 * discourse words and the commonest verbs of a call. A name said after "my name is" ends at one of
 * these ("this is john calling about…").
 */
export const NOT_A_NAME = set(`
  a an the and or but so because if then than that this these those there here where when what who whom whose which why how
  i me my mine myself you your yours yourself we us our he him his she her hers it its they them their
  is am are was were be been being do does did done have has had having will would shall should can could may might must
  to of in on at by for with from about into onto over under after before between through during without within up down out off
  not no yes yeah yep nope okay ok sure right alright well oh uh um er ah hmm mm like just also too very really actually please
  thanks thank hello hi hey bye goodbye sorry excuse pardon
  calling call called speaking speak talking talk here help helping wanted want wants need needs needed looking trying try
  get got getting go going gone went come coming came say said says tell told know knew think thought see saw
  regarding concerning account order number phone email address card payment bill problem question issue
  again still now today tomorrow yesterday later soon one two three four five six seven eight nine ten zero
  name names first last middle full surname spelled spell spelling letter letters
`);

/** Fillers skipped before an answer ("uh it's…"). */
export const FILLERS = set("uh um er ah eh hmm mm so well okay ok yes yeah yep sure right alright it's its it is that's thats that it my sorry");

/** Short replies that close an answer ("…smith. okay thank you"). */
export const REPLIES = set('okay ok thanks thank great perfect good alright bye goodbye cheers lovely');

/** Words said for letters when spelling ("s m i t h", "el", "double u", "zed"). */
export const LETTER_WORDS: Readonly<Record<string, string>> = {
  ...Object.fromEntries('abcdefghijklmnopqrstuvwxyz'.split('').map((l) => [l, l])),
  bee: 'b', be: 'b', cee: 'c', see: 'c', sea: 'c', dee: 'd', ee: 'e', eff: 'f', gee: 'g', aitch: 'h', jay: 'j', kay: 'k',
  el: 'l', ell: 'l', em: 'm', en: 'n', pee: 'p', cue: 'q', queue: 'q', are: 'r', ar: 'r', ess: 's', tee: 't', tea: 't',
  vee: 'v', ex: 'x', why: 'y', wye: 'y', zed: 'z', zee: 'z', oh: 'o',
};

/** The NATO alphabet (and "as in" words people use to spell). */
export const NATO = set('alpha alfa bravo charlie delta echo foxtrot golf hotel india juliet juliett kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu');

/** Titles before a surname. */
export const TITLES = set('mr mister mrs missus miss ms dr doctor sir madam professor');

/** Words before a third person's name ("my husband david", "i spoke to maria"). */
export const RELATIONS = set(`
  husband wife son daughter mother mom mum father dad brother sister friend partner boss manager supervisor colleague
  neighbor neighbour girlfriend boyfriend fiance fiancee aunt uncle cousin nephew niece grandson granddaughter grandmother
  grandfather grandma grandpa landlord roommate assistant agent representative lawyer attorney doctor nurse
`);

/** Street types (the end of a street name) and their abbreviations. */
export const STREET_TYPES = set(`
  street st avenue ave road rd drive dr lane ln boulevard blvd court ct place pl way terrace circle cir parkway pkwy highway hwy
  crescent close square trail plaza alley row walk grove gardens mews parade broadway freeway turnpike pike route
`);

/** Unit words in an address ("apartment 4b", "suite 200"). */
export const UNIT_WORDS = set('apartment apt unit suite flat floor building bldg room po box');

/** Compass words inside addresses ("north", "sw"). */
export const DIRECTIONS = set('north south east west northeast northwest southeast southwest n s e w ne nw se sw');

/** US states and Canadian provinces as said (single words; two-word names are pairs in STATE_PAIRS). */
export const STATES = set(`
  alabama alaska arizona arkansas california colorado connecticut delaware florida georgia hawaii idaho illinois indiana iowa
  kansas kentucky louisiana maine maryland massachusetts michigan minnesota mississippi missouri montana nebraska nevada
  ohio oklahoma oregon pennsylvania tennessee texas utah vermont virginia washington wisconsin wyoming
  ontario quebec alberta manitoba saskatchewan
`);
export const STATE_PAIRS = set('new_hampshire new_jersey new_mexico new_york north_carolina north_dakota south_carolina south_dakota west_virginia rhode_island british_columbia nova_scotia');

/** Top-level domains said after "dot". */
export const TLDS = set('com net org edu gov co uk us io ca de fr au info biz me mil int eu ie nz in');

/** Mail providers (an email's domain said without "at": "john smith gmail dot com"). */
export const MAIL_DOMAINS = set('gmail googlemail yahoo hotmail outlook aol icloud me mac live msn protonmail proton comcast verizon att sbcglobal btinternet ymail');

/** Words that are part of a spoken email besides its names and letters. */
export const EMAIL_SYMBOLS = set('at dot period underscore dash hyphen minus plus');
