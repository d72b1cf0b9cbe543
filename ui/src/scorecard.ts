/**
 * A call's scorecard (issue 28): its categories with the words that matched each (found in the
 * document by the service's own matcher, src/search/match.ts, with the category's rule), metrics
 * (talk time, words per minute per party, overtalk, silence), sentiment per channel or speaker, roles
 * and gender when the transcript has them, redaction counts per kind, and exports of the document and
 * of the recording as stored (the redacted copy under scrubaudio).
 */
import { channelWords, findHits, queryWords } from '../../src/search/match.js';
import { parseTerms } from '../../src/search/query.js';
import type { Category, Hit, Transcript } from './api.js';
import { h } from './dom.js';
import { clock, duration } from './format.js';

/** A party of the call: a channel, or a speaker of a diarized call. */
export interface Party {
  key: string;
  label: string;
}

/** The words one category's rule matches in this call (its hits), or [] when none (or the rule no longer parses). */
export function categoryHits(doc: Transcript, rule: Pick<Category, 'terms' | 'channel' | 'speaker' | 'role'>): Hit[] {
  try {
    const node = parseTerms(rule.terms);
    const words = channelWords(doc);
    // A rule limited to a speaker or a role matches only their words, as the index does.
    return findHits(node, queryWords(words, { speaker: rule.speaker, role: rule.role }), rule.channel).hits;
  } catch {
    return [];
  }
}

/** The most frequent value of `pick` over a party's utterances. */
function majority<T extends string>(doc: Transcript, party: string, pick: (u: Transcript['utterances'][number]) => T | undefined): T | undefined {
  const counts = new Map<T, number>();
  for (const u of doc.utterances) {
    if (partyOf(u) !== party) continue;
    const v = pick(u);
    if (v) counts.set(v, (counts.get(v) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
}

/** The party key the service uses for metrics and sentiment: the speaker when diarized, else the channel. */
export function partyOf(u: Transcript['utterances'][number]): string {
  return u.metadata.speaker ?? String(u.metadata.channel);
}

/** Redacted (and, under scrubtext=tag, marked) words per kind. */
export function redactionCounts(doc: Transcript): { redacted: Record<string, number>; marked: Record<string, number> } {
  const redacted: Record<string, number> = {};
  const marked: Record<string, number> = {};
  for (const u of doc.utterances) {
    for (const e of u.events) {
      if (e.redacted) redacted[e.redacted] = (redacted[e.redacted] ?? 0) + 1;
      if (e.pii) marked[e.pii] = (marked[e.pii] ?? 0) + 1;
    }
  }
  return { redacted, marked };
}

function table(caption: string, head: string[], rows: Array<Array<Node | string>>): HTMLElement {
  return h('div', { class: 'table-scroll' }, h('table', { class: 'data' }, h('caption', {}, caption),
    h('thead', {}, h('tr', {}, head.map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', {}, rows.map(([first, ...rest]) => h('tr', {}, h('th', { scope: 'row' }, first!), rest.map((c) => h('td', {}, c)))))));
}

const sentimentTag = (s: { label: string; score: number }) => h('span', { class: `sentiment-${s.label.toLowerCase().replace(' ', '-')}` }, `${s.label} (${s.score.toFixed(2)})`);

/** The document's `roles` (agent, then customer): who is in each and how each spoke (docs/speakers.md, "Roles"). */
function roleRows(roles: NonNullable<Transcript['roles']>, parties: Party[]): Array<Array<Node | string>> {
  return (['agent', 'customer'] as const).flatMap((role) => {
    const r = roles[role];
    if (!r) return [];
    return [[
      role === 'agent' ? 'Agent' : 'Customer',
      r.parties.map((key) => parties.find((p) => p.key === key || `C${p.key}` === key)?.label ?? key).join(', '),
      duration(r.talksecs),
      String(Math.round(r.wordsperminute)),
      String(r.interruptions),
      r.sentiment ? sentimentTag(r.sentiment) : '\u2013',
    ]];
  });
}

export interface ScorecardOptions {
  doc: Transcript;
  parties: Party[];
  rules: Category[];
  /** Plays from a time (a matched word). */
  seek: (t: number) => void;
  /** A signed link to the stored recording (all channels), for the download. */
  audioLink: () => Promise<string>;
}

export function scorecard(o: ScorecardOptions): HTMLElement {
  const { doc } = o;
  const cats = doc.categories ?? [];
  const catList = cats.length === 0
    ? h('p', { class: 'muted' }, 'In no category.')
    : h('ul', { class: 'score-cats' }, cats.map((name) => {
      const rule = o.rules.find((r) => r.name === name);
      const hits = rule ? categoryHits(doc, rule) : [];
      return h('li', {}, h('span', { class: 'chip' }, name), rule ? h('code', { class: 'rule' }, rule.terms) : null,
        hits.length ? h('ul', { class: 'cat-hits' }, hits.slice(0, 5).map((x) => h('li', {}, h('button', { type: 'button', class: 'link', 'aria-label': `Play from ${clock(x.start)}: ${x.text}`, onclick: () => o.seek(x.start) }, clock(x.start)), ` \u2026${x.text}\u2026`))) : null);
    }));

  const m = doc.metrics;
  const partyRows = o.parties.map((p) => {
    const s = doc.sentiment?.[p.key];
    const gender = majority(doc, p.key, (u) => u.metadata.gender);
    const role = majority(doc, p.key, (u) => (u.metadata as { role?: string }).role);
    return [
      p.label,
      role ?? '\u2013',
      m?.talksecs[p.key] !== undefined ? duration(m.talksecs[p.key]!) : '\u2013',
      m?.wordsperminute[p.key] !== undefined ? String(Math.round(m.wordsperminute[p.key]!)) : '\u2013',
      m?.interruptions ? String(m.interruptions[p.key] ?? 0) : '\u2013',
      s ? sentimentTag(s) : '\u2013',
      gender ?? '\u2013',
    ];
  });
  const { redacted, marked } = redactionCounts(doc);
  const redactions = Object.keys(redacted).length + Object.keys(marked).length === 0
    ? h('p', { class: 'muted' }, 'Nothing redacted.')
    : h('ul', { class: 'redactions' },
      Object.entries(redacted).map(([k, n]) => h('li', {}, h('strong', {}, String(n)), ` ${k} ${n === 1 ? 'word' : 'words'} redacted`)),
      Object.entries(marked).map(([k, n]) => h('li', {}, h('strong', {}, String(n)), ` ${k} ${n === 1 ? 'word' : 'words'} marked`)));

  const jsonButton = h('button', { type: 'button', class: 'secondary' }, 'Download the document (JSON)');
  jsonButton.addEventListener('click', () => {
    const url = URL.createObjectURL(new Blob([JSON.stringify(doc, null, 2)], { type: 'application/json' }));
    const a = h('a', { href: url, download: `${doc.source.replace(/\.[^.]+$/, '') || doc.tid}.json`, hidden: true });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  });
  const audioButton = h('button', { type: 'button', class: 'secondary' }, 'Download the recording (WAV)');
  const audioStatus = h('span', { class: 'muted', role: 'status' });
  audioButton.addEventListener('click', async () => {
    try {
      const a = h('a', { href: await o.audioLink(), download: '', hidden: true });
      document.body.append(a);
      a.click();
      a.remove();
    } catch (err) {
      audioStatus.textContent = (err as Error).message;
    }
  });

  return h(
    'section',
    { class: 'scorecard', 'aria-labelledby': 'score-title' },
    h('h2', { id: 'score-title' }, 'Scorecard'),
    h('div', { class: 'score-grid' },
      h('div', { class: 'score-box' }, h('h3', {}, 'Categories'), catList),
      h('div', { class: 'score-box' }, h('h3', {}, 'Call'),
        h('dl', { class: 'facts compact' },
          h('div', {}, h('dt', {}, 'Overtalk'), h('dd', {}, m ? `${m.overtalksecs.toFixed(1)} s` : '\u2013')),
          h('div', {}, h('dt', {}, 'Silence'), h('dd', {}, m ? `${m.silencesecs.toFixed(1)} s (longest ${m.longestsilencesecs.toFixed(1)} s)` : '\u2013')),
          h('div', {}, h('dt', {}, 'Duration'), h('dd', {}, duration(doc.audiosecs))))),
      h('div', { class: 'score-box' }, h('h3', {}, 'Redaction'), redactions)),
    doc.roles ? table('By role', ['Role', 'Parties', 'Talk time', 'Words per minute', 'Interruptions', 'Sentiment'], roleRows(doc.roles, o.parties)) : null,
    table('By party', ['Party', 'Role', 'Talk time', 'Words per minute', 'Interruptions', 'Sentiment', 'Gender'], partyRows),
    h('div', { class: 'exports' }, jsonButton, audioButton, audioStatus),
  );
}
