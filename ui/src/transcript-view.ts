/**
 * One call: its facts, its scorecard (ui/src/scorecard.ts), the recording (mixed, one channel, or all
 * channels) through a signed audio link, its hits, and the transcript by channel or speaker — the
 * readable text of each utterance when the transcript has it, or its recognized words — with what is
 * being said highlighted during playback. A click (or Enter) on a word plays from there;
 * low-confidence words are marked. Channels can be named (Agent, Customer) in the page; the names
 * are kept in the browser for the company. Opened from a hit it starts playing at the hit.
 */
import { isSpoken } from '../../src/text/event-kind.js';
import { ApiError, audioLink, categoriesHaving, details, search, type Account, type Hit, type Scope } from './api.js';
import { announce, h, option, replace } from './dom.js';
import { clock, dateTime, duration } from './format.js';
import { partyOf, scorecard, type Party } from './scorecard.js';
import { hitWordTest, markSnippet } from './snippet.js';

/** Words below this confidence are shown as uncertain. */
export const LOW_CONFIDENCE = 0.5;

interface Word {
  start: number;
  end: number;
  channel: number;
  el: HTMLElement;
}

/** What the page's URL says about the call to show. */
interface CallParams {
  scope: Scope;
  tid?: string;
  file?: string;
  dt?: string;
  terms: string;
  /** Start playing here (seconds), from a hit. */
  at?: number;
  back: string | null;
  /** The search that finds the call (and its hits). */
  filter: Record<string, unknown>;
  channel: string | null;
  speaker: string | null;
  role: string | null;
}

export async function renderTranscript(main: HTMLElement, params: URLSearchParams, account: Account): Promise<() => void> {
  const call = callParams(params, account);
  replace(main, h('p', { class: 'muted' }, 'Loading the call…'));
  const [docs, found] = await Promise.all([
    details(call.scope, call.filter),
    // Its summary row: the call time (an index field) and, with terms, the hits.
    search(call.scope, { ...call.filter, ...hitOptions(call) }),
  ]);
  const doc = docs.find((d) => (call.tid ? d.tid === call.tid : d.source === call.file));
  const backLink = h('a', { class: 'back', href: call.back ?? '#/search' }, '\u2190 Back to the results');
  if (!doc) {
    replace(main, backLink, h('h1', { tabindex: '-1' }, call.file ?? 'Call'), h('p', { class: 'error', role: 'alert' }, 'This call is no longer in the index (it may have been deleted).'));
    return () => {};
  }
  const row = found?.rows.find((r) => r.tid === doc.tid);
  const hits = row?.hits ?? [];
  const player = createPlayer(doc);
  const names = channelNames(call.scope.company);
  const transcript = createTranscript(doc, hits, player.audio, names);
  const rules = await categoriesHaving(call.scope.company, doc.categories ?? []).catch(() => []);
  replace(
    main,
    backLink,
    h('h1', { tabindex: '-1' }, doc.source),
    callFacts(doc, row?.datetime ?? call.dt),
    h('section', { class: 'player', 'aria-label': 'Recording' }, player.audio, player.radios, player.status),
    scorecard({ doc, parties: parties(doc, names), rules, seek: transcript.seek, audioLink: () => audioLink(doc.requestid, doc.source, 'all') }),
    hitSection(hits, hitWordTest(call.terms), transcript.seek),
    transcript.section,
  );
  transcript.lanes.setAttribute('aria-describedby', 'transcript-legend');
  transcript.lanes.setAttribute('aria-label', 'Transcript by channel');
  void player.load(call.at, call.at !== undefined);
  (main.querySelector('h1') as HTMLElement).focus();
  return () => {
    transcript.stop();
    player.stop();
  };
}

function callParams(params: URLSearchParams, account: Account): CallParams {
  const company = params.get('co') ?? account.companies[0]?.company ?? '';
  const file = params.get('file') ?? undefined;
  const dt = params.get('dt') ?? undefined;
  const filter: Record<string, unknown> = { size: 1000 };
  if (file) filter.filename = file;
  if (dt) Object.assign(filter, { from: dt, to: dt });
  if (params.get('rid')) filter.requestid = params.get('rid');
  return {
    scope: { company, org: params.get('org') ?? '', folder: params.get('folder') ?? undefined },
    tid: params.get('tid') ?? undefined,
    file,
    dt,
    terms: params.get('terms') ?? '',
    at: params.get('t') === null ? undefined : Number(params.get('t')),
    back: params.get('back'),
    filter,
    channel: params.get('channel'),
    speaker: params.get('speaker'),
    role: params.get('role'),
  };
}

/** The options that limit the call's hits as the search it was opened from did: its terms, said on that channel, by that speaker or role. */
function hitOptions(call: CallParams): Record<string, unknown> {
  if (!call.terms) return {};
  const o: Record<string, unknown> = { terms: call.terms };
  if (call.channel) o.channel = Number(call.channel);
  if (call.speaker) o.speaker = call.speaker;
  if (call.role) o.role = call.role;
  return o;
}

type CallDoc = Awaited<ReturnType<typeof details>>[number];

interface Player {
  audio: HTMLAudioElement;
  radios: HTMLElement;
  status: HTMLElement;
  /** Loads the recording (a fresh signed link) and seeks to `startAt`, playing if asked. */
  load(startAt: number | undefined, play: boolean): Promise<void>;
  stop(): void;
}

/** The audio element, the channel choice (mixed, one channel, all) and a status line. */
function createPlayer(doc: CallDoc): Player {
  const audio = h('audio', { id: 'player', controls: true, preload: 'metadata' }) as HTMLAudioElement;
  const status = h('p', { class: 'audio-status', role: 'status' });
  const channelChoices: [string, string][] = [['mix', 'Mixed']];
  for (let c = 0; c < doc.nchannels; c++) channelChoices.push([String(c), `Channel ${c}`]);
  if (doc.nchannels > 1) channelChoices.push(['all', doc.nchannels === 2 ? 'Both (stereo)' : 'All channels']);
  let channel = doc.nchannels > 1 ? 'mix' : 'all';
  const radios = h(
    'fieldset',
    { class: 'channels' },
    h('legend', {}, 'Listen to'),
    channelChoices.map(([value, label]) => {
      const input = h('input', { type: 'radio', name: 'listen', value, checked: value === channel });
      input.addEventListener('change', () => void setChannel(value));
      return h('label', { class: 'radio' }, input, label);
    }),
  );
  if (doc.nchannels === 1) radios.hidden = true;

  let linkFor = '';
  let retried = false;
  const load = async (startAt: number | undefined, play: boolean) => {
    let url: string;
    try {
      url = await audioLink(doc.requestid, doc.source, channel);
    } catch (err) {
      status.textContent = err instanceof ApiError && err.status === 404 ? `The recording cannot be played: ${err.message}` : (err as Error).message;
      return;
    }
    linkFor = channel;
    audio.src = url;
    audio.addEventListener(
      'loadedmetadata',
      () => {
        if (startAt !== undefined) audio.currentTime = Math.min(startAt, audio.duration || startAt);
        if (play) {
          audio.play().catch(() => {
            status.textContent = `Press play to listen from ${clock(startAt ?? 0)}.`;
          });
        }
      },
      { once: true },
    );
  };
  const setChannel = async (value: string) => {
    if (value === linkFor) return;
    channel = value;
    const wasPlaying = !audio.paused;
    await load(audio.currentTime, wasPlaying);
    announce(`Listening to ${channelChoices.find(([v]) => v === value)?.[1] ?? value}`);
  };
  audio.addEventListener('playing', () => {
    if (!audio.dataset.startedAt) audio.dataset.startedAt = String(audio.currentTime);
    status.textContent = '';
  });
  audio.addEventListener('error', () => {
    if (retried) {
      status.textContent = 'The recording could not be played.';
      return;
    }
    retried = true; // an expired link: ask for a new one once
    void load(audio.currentTime, false);
  });
  const stop = () => {
    audio.pause();
    audio.removeAttribute('src');
    audio.load();
  };
  return { audio, radios, status, load, stop };
}

interface Transcript {
  section: HTMLElement;
  lanes: HTMLElement;
  /** Plays from `t` (seconds). */
  seek(t: number): void;
  stop(): void;
}

/** Names the viewer gave the channels (Agent, Customer), kept in the browser per company. */
interface ChannelNames {
  get(channel: number): string | undefined;
  set(channel: number, name: string): void;
}

const CHANNEL_ROLES = ['Agent', 'Customer'];

function channelNames(company: string): ChannelNames {
  const key = `voxdex.channelNames.${company}`;
  let names: Record<string, string> = {};
  try {
    names = JSON.parse(localStorage.getItem(key) ?? '{}') as Record<string, string>;
  } catch {
    /* none kept */
  }
  return {
    get: (c) => names[String(c)],
    set: (c, name) => {
      if (name) names[String(c)] = name;
      else delete names[String(c)];
      try {
        localStorage.setItem(key, JSON.stringify(names));
      } catch {
        /* storage refused: the names last for this view */
      }
    },
  };
}

/** The transcript's parties (metrics and sentiment keys) in order of first appearance, with their labels. */
function parties(doc: CallDoc, names: ChannelNames): Party[] {
  const out: Party[] = [];
  for (const u of timeOrder(doc)) {
    const key = partyOf(u);
    if (out.some((p) => p.key === key)) continue;
    out.push({ key, label: partyLabel(u, names) });
  }
  return out;
}

const title = (role: string) => role[0]!.toUpperCase() + role.slice(1);

/** "Agent (channel 0)", "Agent (speaker S1)", "Speaker S2", "Channel 1 · C1S2": how an utterance's party is called on the page. */
function partyLabel(u: CallDoc['utterances'][number], names: ChannelNames, bySpeaker = false): string {
  const ch = u.metadata.channel;
  const role = (u.metadata as { role?: string }).role;
  const named = names.get(ch) ?? (role ? title(role) : undefined);
  if (bySpeaker || (u.metadata.speaker && /^S\d/.test(u.metadata.speaker))) return role ? `${title(role)} (speaker ${u.metadata.speaker})` : `Speaker ${u.metadata.speaker}`;
  const base = named ? `${named} (channel ${ch})` : `Channel ${ch}`;
  return u.metadata.speaker && u.metadata.speaker !== `C${ch}` ? `${base} \u00b7 ${u.metadata.speaker}` : base;
}

/** The transcript section: one lane per channel, the words playable, the spoken word highlighted. */
function createTranscript(doc: CallDoc, hits: Hit[], audio: HTMLAudioElement, names: ChannelNames): Transcript {
  const seek = (t: number) => {
    audio.currentTime = t;
    if (audio.paused) void audio.play().catch(() => {});
    follower.highlight();
  };
  const { lanes, words } = transcriptLanes(doc, hits, seek, names);
  wordNavigation(lanes, words, seek);
  const follow = h('input', { type: 'checkbox', checked: true });
  const follower = followPlayback(audio, words, follow);
  const hasText = doc.utterances.some((u) => typeof u.text === 'string' && u.text !== '');
  const readable = h('input', { type: 'checkbox', checked: hasText, id: 'readable' });
  const setReadable = () => lanes.classList.toggle('readable', readable.checked);
  readable.addEventListener('change', () => {
    setReadable();
    announce(readable.checked ? 'Showing the readable text' : 'Showing the recognized words');
  });
  setReadable();
  const naming = doc.nchannels > 1 && !doc.utterances.some((u) => u.metadata.speaker && /^S\d/.test(u.metadata.speaker))
    ? h('fieldset', { class: 'channel-names' }, h('legend', {}, 'Name the channels'), Array.from({ length: Math.min(doc.nchannels, 4) }, (_, c) => {
      const sel = h('select', { id: `name-ch-${c}` }, option('', `Channel ${c}`, !names.get(c)), CHANNEL_ROLES.map((r) => option(r, r, names.get(c) === r)));
      sel.addEventListener('change', () => {
        names.set(c, sel.value);
        for (const el of lanes.querySelectorAll<HTMLElement>(`.ch-label[data-channel="${c}"]`)) {
          const u = doc.utterances.find((x) => x.metadata.channel === c && partyOf(x) === el.dataset.party);
          if (u) el.textContent = partyLabel(u, names);
        }
        announce(`Channel ${c} is now ${sel.value || `Channel ${c}`}`);
      });
      return h('span', { class: 'pair' }, h('label', { for: `name-ch-${c}` }, `Channel ${c}`), sel);
    }))
    : null;
  const section = h(
    'section',
    { class: 'transcript', 'aria-labelledby': 'transcript-title' },
    h('div', { class: 'transcript-head' }, h('h2', { id: 'transcript-title' }, 'Transcript'),
      hasText ? h('label', { class: 'check' }, readable, 'Readable text') : null,
      h('label', { class: 'check' }, follow, 'Follow playback')),
    naming,
    h(
      'p',
      { class: 'legend hint', id: 'transcript-legend' },
      hasText ? 'With readable text off, click a word to play from it ' : 'Click a word to play from it ',
      '(keyboard: arrow keys move between words, Enter plays); each utterance\'s time plays from its start. ',
      h('span', { class: 'w low' }, 'Dotted'),
      ' words are uncertain; ',
      h('span', { class: 'w w-hit' }, 'marked'),
      ' words are hits.',
    ),
    words.length ? lanes : h('p', { class: 'muted' }, 'No speech was recognized in this call.'),
  );
  return { section, lanes, seek, stop: follower.stop };
}

/** The utterances in time order (channel order within the same start). */
function timeOrder(doc: CallDoc): CallDoc['utterances'] {
  return [...doc.utterances].sort((a, b) => a.start - b.start || a.metadata.channel - b.metadata.channel);
}

/** A diarized mono call's speakers in order of first appearance, and each one's share of the talk time. */
function speakerTalk(doc: CallDoc): { speakers: string[]; share: (speaker: string) => string } {
  const utts = timeOrder(doc);
  const speakers = doc.nchannels === 1 ? [...new Set(utts.map((u) => u.metadata.speaker).filter((s): s is string => !!s))] : [];
  const talk = new Map<string, number>();
  for (const u of utts) if (u.metadata.speaker) talk.set(u.metadata.speaker, (talk.get(u.metadata.speaker) ?? 0) + Math.max(0, u.end - u.start));
  const total = [...talk.values()].reduce((a, b) => a + b, 0);
  return { speakers, share: (s) => `${Math.round((100 * (talk.get(s) ?? 0)) / (total || 1))} %` };
}

/**
 * The utterances in time order, each word a span (uncertain and hit words marked), each utterance's
 * time a play button, its readable text beside the words. Two lanes side by side; more (a mono call
 * with several speakers, or several channels) stay one legible column, each lane its own colour and
 * label, instead of narrow columns.
 */
function transcriptLanes(doc: CallDoc, hits: Hit[], seek: (t: number) => void, names: ChannelNames): { lanes: HTMLElement; words: Word[] } {
  const words: Word[] = [];
  const utts = timeOrder(doc);
  // a diarized mono call: one lane per speaker (S1, S2… in order of first appearance), as channels have
  const { speakers } = speakerTalk(doc);
  const bySpeaker = speakers.length > 1;
  const count = bySpeaker ? speakers.length : doc.nchannels;
  const lanes = h('div', { class: `lanes ${count <= 2 ? `lanes-${count}` : 'lanes-many'}`, role: 'list' });
  for (const u of utts) {
    const ch = u.metadata.channel;
    const lane = bySpeaker ? speakers.indexOf(u.metadata.speaker!) : ch;
    const who = partyLabel(u, names, bySpeaker);
    const ws = u.events.filter(isSpoken);
    if (ws.length === 0) continue;
    const p = h('p', { class: 'words' });
    ws.forEach((e, i) => {
      const low = e.confidence < LOW_CONFIDENCE;
      const inHit = hits.some((x) => x.channel === ch && e.start >= x.start - 0.001 && e.end <= x.end + 0.001);
      const el = h(
        'span',
        {
          class: `w${low ? ' low' : ''}${inHit ? ' w-hit' : ''}`,
          role: 'button',
          tabindex: '-1',
          'data-start': e.start,
          title: `${clock(e.start)}${low ? ` \u00b7 low confidence (${e.confidence.toFixed(2)})` : ''}`,
          'aria-label': low ? `${e.word} (uncertain)` : undefined,
        },
        e.word,
      );
      words.push({ start: e.start, end: e.end, channel: ch, el });
      if (i > 0) p.append(' ');
      p.append(el);
    });
    const time = h('button', { type: 'button', class: 'utt-time', 'aria-label': `Play ${who.toLowerCase()} from ${clock(u.start)}` }, clock(u.start));
    time.addEventListener('click', () => seek(u.start));
    const mood = u.metadata.sentiment;
    const moodTag = mood ? h('span', { class: `mood sentiment-${mood.toLowerCase().replace(' ', '-')}`, title: `Sentiment ${u.metadata.sentimentscore ?? ''}` }, mood) : null;
    const text = typeof u.text === 'string' && u.text !== '' ? h('p', { class: 'text' }, u.text) : null;
    lanes.append(h('div', { class: `utt ch-${lane % 8}${text ? ' has-text' : ''}`, role: 'listitem', 'data-start': u.start, 'data-end': u.end },
      h('div', { class: 'utt-head' }, h('span', { class: 'ch-label', 'data-channel': ch, 'data-party': partyOf(u) }, who), time, moodTag), text, p));
  }
  if (words[0]) words[0].el.tabIndex = 0;
  return { lanes, words };
}

/** A click on a word plays from it; arrow keys, Home and End move between words, Enter or Space plays. */
function wordNavigation(lanes: HTMLElement, words: Word[], seek: (t: number) => void): void {
  const order = new Map(words.map((w, i) => [w.el, i]));
  const focusWord = (i: number) => {
    for (const w of words) if (w.el.tabIndex === 0) w.el.tabIndex = -1;
    words[i]!.el.tabIndex = 0;
    words[i]!.el.focus();
  };
  lanes.addEventListener('click', (e) => {
    const el = (e.target as HTMLElement).closest('.w') as HTMLElement | null;
    if (el && order.has(el)) {
      focusWord(order.get(el)!);
      seek(Number(el.dataset.start));
    }
  });
  lanes.addEventListener('keydown', (e) => {
    const i = order.get(document.activeElement as HTMLElement);
    if (i === undefined) return;
    const move: Record<string, number> = { ArrowRight: i + 1, ArrowDown: i + 1, ArrowLeft: i - 1, ArrowUp: i - 1, Home: 0, End: words.length - 1 };
    if (e.key in move) {
      e.preventDefault();
      focusWord(Math.max(0, Math.min(words.length - 1, move[e.key]!)));
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      seek(words[i]!.start);
    }
  });
}

/** Highlights the word being spoken on each channel, following playback (scrolling to it while `follow` is checked). */
function followPlayback(audio: HTMLAudioElement, words: Word[], follow: HTMLInputElement): { highlight(): void; stop(): void } {
  const byChannel = new Map<number, Word[]>();
  for (const w of words) {
    if (!byChannel.has(w.channel)) byChannel.set(w.channel, []);
    byChannel.get(w.channel)!.push(w);
  }
  for (const list of byChannel.values()) list.sort((a, b) => a.start - b.start);
  let lit: HTMLElement[] = [];
  const highlight = () => {
    const t = audio.currentTime;
    const now: HTMLElement[] = [];
    for (const list of byChannel.values()) {
      const w = lastStartingBefore(list, t);
      if (w && t < w.end + 0.05) now.push(w.el);
    }
    if (now.length === lit.length && now.every((el, i) => el === lit[i])) return;
    for (const el of lit) {
      el.classList.remove('now');
      el.closest('.utt')?.classList.remove('utt-now');
    }
    for (const el of now) {
      el.classList.add('now');
      el.closest('.utt')?.classList.add('utt-now'); // what is said now, also in readable text
    }
    if (follow.checked && now[0] && now[0] !== lit[0] && !audio.paused) now[0].closest('.utt')?.scrollIntoView({ block: 'nearest' });
    lit = now;
  };
  let frame = 0;
  const tick = () => {
    highlight();
    frame = audio.paused ? 0 : requestAnimationFrame(tick);
  };
  audio.addEventListener('play', () => {
    if (!frame) frame = requestAnimationFrame(tick);
  });
  audio.addEventListener('seeked', highlight);
  audio.addEventListener('timeupdate', highlight);
  return { highlight, stop: () => cancelAnimationFrame(frame) };
}

/** The call's facts: date, duration, channels, model, confidence, request, custom metadata. */
function callFacts(doc: CallDoc, datetime: string | undefined): HTMLElement {
  const meta = doc.streamtags?.metadata ?? {};
  const { speakers, share } = speakerTalk(doc);
  return h(
    'dl',
    { class: 'facts' },
    fact('Call date', dateTime(datetime)),
    fact('Duration', duration(doc.audiosecs)),
    fact('Channels', String(doc.nchannels)),
    speakers.length ? fact('Speakers', speakers.map((sp) => `${sp} ${share(sp)} of talk`).join(', ')) : null,
    fact('Model', doc.model),
    doc.confidence !== undefined ? fact('Confidence', doc.confidence.toFixed(2)) : null,
    fact('Request', doc.requestid),
    Object.entries(meta).map(([k, v]) => fact(k, typeof v === 'string' ? v : JSON.stringify(v))),
  );
}

function hitSection(hits: Hit[], isHit: (w: string) => boolean, seek: (t: number) => void): HTMLElement | null {
  if (!hits.length) return null;
  return h(
    'section',
    { class: 'call-hits', 'aria-labelledby': 'hits-title' },
    h('h2', { id: 'hits-title' }, hits.length === 1 ? '1 hit' : `${hits.length} hits`),
    h('ul', { class: 'hits' }, hits.map((x) => h('li', {}, hitButton(x, isHit, seek)))),
  );
}

function fact(name: string, value: string): HTMLElement {
  return h('div', {}, h('dt', {}, name), h('dd', {}, value));
}

function hitButton(hit: Hit, isHit: (w: string) => boolean, seek: (t: number) => void): HTMLButtonElement {
  const b = h(
    'button',
    { type: 'button', class: 'hit' },
    h('span', { class: 'at' }, h('span', { 'aria-hidden': 'true' }, '\u25b6\u00a0'), h('span', { class: 'sr' }, 'Play from '), clock(hit.start)),
    h('span', { class: 'ch' }, `ch\u00a0${hit.channel}`),
    h('span', { class: 'snip' }, markSnippet(hit.text, isHit)),
  );
  b.addEventListener('click', () => seek(hit.start));
  return b;
}

/** The last word starting at or before t (binary search over one channel's words by start time). */
function lastStartingBefore(words: Word[], t: number): Word | undefined {
  let lo = 0;
  let hi = words.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (words[mid]!.start <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 ? words[lo - 1] : undefined;
}
