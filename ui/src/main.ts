/**
 * The voxdex web UI: sign in with a token, search transcripts, open a call at a hit and listen,
 * follow jobs and upload. Views by URL hash (#/search?…, #/call?…, #/jobs); the hash carries what
 * is searched and opened, never the token.
 */
import { ApiError, json, whenUnauthorized, type Account } from './api.js';
import { h, replace } from './dom.js';
import { renderDashboard } from './dashboard-view.js';
import { renderJobs } from './jobs-view.js';
import { renderLive } from './live-view.js';
import { renderSearch } from './search-view.js';
import { cacheAccount, cachedAccount, signOut, token } from './session.js';
import { renderSignIn } from './sign-in.js';
import { renderTranscript } from './transcript-view.js';

/** A view draws into `main` and returns what to do when it is left (stop timers, audio). */
export type View = (main: HTMLElement, params: URLSearchParams, account: Account) => Promise<(() => void) | void>;

const VIEWS: Record<string, View> = { search: renderSearch, call: renderTranscript, jobs: renderJobs, dashboard: renderDashboard, live: renderLive };

let account: Account | undefined;
let leave: (() => void) | void;
let generation = 0;

function parseHash(): { view: string; params: URLSearchParams } {
  const raw = location.hash.replace(/^#\/?/, '');
  const q = raw.indexOf('?');
  const view = (q < 0 ? raw : raw.slice(0, q)) || 'search';
  return { view: VIEWS[view] ? view : 'search', params: new URLSearchParams(q < 0 ? '' : raw.slice(q + 1)) };
}

function header(a: Account | undefined, current: string): HTMLElement {
  const link = (view: string, text: string) =>
    h('a', { href: `#/${view}`, 'aria-current': view === current ? 'page' : undefined }, text);
  const who = a ? (a.principal === 'root' ? 'root (all companies)' : a.company ?? '') : '';
  return h(
    'div',
    { class: 'bar' },
    h('a', { class: 'brand', href: '#/search' }, 'voxdex'),
    a ? h('nav', { 'aria-label': 'Main' }, link('search', 'Search'), link('dashboard', 'Dashboard'), link('live', 'Live'), link('jobs', 'Jobs')) : null,
    a
      ? h(
          'div',
          { class: 'who' },
          h('span', { class: 'signed-in', title: 'Signed in as' }, who),
          h('button', { type: 'button', class: 'link', id: 'sign-out', onclick: () => doSignOut() }, 'Sign out'),
        )
      : null,
  );
}

function doSignOut(message?: string): void {
  signOut();
  account = undefined;
  void route(message);
}

async function route(message?: string): Promise<void> {
  const mine = ++generation;
  if (leave) leave();
  leave = undefined;
  const main = document.getElementById('main')!;
  const top = document.getElementById('top')!;
  if (!token()) {
    replace(top, header(undefined, ''));
    await renderSignIn(main, message, async (a) => {
      account = a;
      cacheAccount(a);
      await route();
    });
    return;
  }
  if (!account) {
    // A reload starts with what the token could see last time and checks it meanwhile.
    account = cachedAccount<Account>();
    if (account) void refreshAccount();
  }
  if (!account) {
    try {
      account = await json<Account>('/account');
      cacheAccount(account);
    } catch (err) {
      if (mine !== generation) return;
      if (err instanceof ApiError && err.status === 401) return; // whenUnauthorized shows the sign-in
      replace(main, h('p', { class: 'error', role: 'alert' }, (err as Error).message));
      return;
    }
  }
  if (mine !== generation) return;
  const { view, params } = parseHash();
  replace(top, header(account, view === 'call' ? 'search' : view));
  main.setAttribute('aria-busy', 'true');
  try {
    const cleanup = await VIEWS[view]!(main, params, account);
    if (mine === generation) leave = cleanup;
    else if (cleanup) cleanup();
  } catch (err) {
    if (mine !== generation || (err instanceof ApiError && err.status === 401)) return;
    replace(main, h('h1', {}, 'Something went wrong'), h('p', { class: 'error', role: 'alert' }, (err as Error).message));
  } finally {
    main.removeAttribute('aria-busy');
  }
}

/** Fetches GET /account again; when the token now sees something else, the view is drawn anew. */
async function refreshAccount(): Promise<void> {
  try {
    const fresh = await json<Account>('/account');
    if (JSON.stringify(fresh) === JSON.stringify(account)) return;
    account = fresh;
    cacheAccount(fresh);
    await route();
  } catch {
    /* a 401 signs out (whenUnauthorized); anything else: keep what we have */
  }
}

whenUnauthorized((message) => doSignOut(`Signed out: ${message}`));
window.addEventListener('hashchange', () => void route());
void route();
