/** Sign-in: the token is checked with GET /account before it is kept (sessionStorage). */
import { ApiError, json, type Account } from './api.js';
import { field, h, replace } from './dom.js';
import { signIn } from './session.js';

export async function renderSignIn(main: HTMLElement, message: string | undefined, done: (a: Account) => Promise<void>): Promise<void> {
  const input = h('input', { type: 'password', name: 'token', autocomplete: 'off', spellcheck: 'false', required: true, 'aria-required': 'true' });
  const error = h('p', { class: 'error', id: 'sign-in-error', role: 'alert' }, message ?? '');
  const button = h('button', { type: 'submit', class: 'primary' }, 'Sign in');
  const form = h(
    'form',
    { class: 'card sign-in', 'aria-labelledby': 'sign-in-title' },
    h('h1', { id: 'sign-in-title' }, 'Sign in to voxdex'),
    h('p', {}, 'Use your company token (32 characters from your administrator) or the installation\u2019s root token. It stays in this browser tab only.'),
    field('Token', input),
    error,
    button,
  );
  input.setAttribute('aria-describedby', 'sign-in-error');
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const value = input.value.trim();
    if (!value) return;
    button.disabled = true;
    error.textContent = '';
    try {
      const account = await json<Account>('/account', { token: value });
      signIn(value);
      await done(account);
    } catch (err) {
      error.textContent = err instanceof ApiError && err.status === 401 ? `This token was not accepted: ${err.message}` : (err as Error).message;
      input.setAttribute('aria-invalid', 'true');
      input.focus();
      input.select();
    } finally {
      button.disabled = false;
    }
  });
  replace(main, form);
  input.focus();
}
