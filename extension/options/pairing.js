/*
 * "Pair with the companion": asks the companion for a pairing request, shows its code, and says
 * in words what happens while the reader compares it with the terminal's and confirms there with
 * `citelens pair CODE`; the token then arrives and is saved. Runs in: the options page.
 */
import { pairWithCompanion, testConnection } from '../background/companion.js';
import { toUserError } from '../background/errors.js';

/**
 * Writes `text` into `el` as text nodes; `backticks` become <code>. Never HTML: messages can
 * quote what the companion said.
 * @param {HTMLElement} el @param {string} kind @param {string} text
 */
export function showText(el, kind, text) {
  el.className = kind;
  el.replaceChildren();
  text.split('`').forEach((piece, i) => {
    if (!piece) return;
    if (i % 2) {
      const code = el.ownerDocument.createElement('code');
      code.textContent = piece;
      el.append(code);
    } else {
      el.append(piece);
    }
  });
}

/** @param {number} seconds */
function minutes(seconds) {
  return seconds >= 90 ? `${Math.round(seconds / 60)} minutes` : `${Math.max(1, Math.round(seconds))} seconds`;
}

/**
 * @typedef {{companion: string, token: string}} Settings
 * @param {{
 *   button: HTMLButtonElement, cancel: HTMLButtonElement, code: HTMLElement, status: HTMLElement,
 *   settings: () => Settings | null,
 *   save: (settings: Settings) => Promise<unknown>,
 *   pair?: typeof pairWithCompanion, check?: typeof testConnection,
 * }} parts  `settings` reads the form (null after saying what is wrong); `pair` and `check` are
 *   the companion calls, replaceable in unit tests only.
 */
export function pairingControl({ button, cancel, code, status, settings, save, pair = pairWithCompanion, check = testConnection }) {
  /** @type {AbortController | null} */
  let running = null;

  /** @param {'idle'|'asking'|'waiting'|'checking'|'paired'|'error'|'cancelled'} state @param {string} text */
  const set = (state, text) => {
    status.dataset.state = state;
    showText(status, { paired: 'ok', error: 'error', idle: '' }[state] ?? 'busy', text);
    button.disabled = state === 'asking' || state === 'waiting' || state === 'checking';
    // Once the token is here there is nothing left to cancel.
    cancel.hidden = !(state === 'asking' || state === 'waiting');
    if (state !== 'waiting') {
      code.hidden = true;
      code.textContent = '';
    }
  };

  async function start() {
    const current = settings();
    if (!current || running) return;
    const controller = new AbortController();
    running = controller;
    set('asking', `Asking the companion at ${current.companion} for a pairing code…`);
    try {
      const token = await pair(current.companion, {
        signal: controller.signal,
        onCode(digits, expiresIn) {
          code.textContent = digits.split('').join(' ');
          code.setAttribute('aria-label', `Pairing code ${digits.split('').join(' ')}`);
          code.hidden = false;
          set(
            'waiting',
            `The companion's terminal now shows a pairing request. If its code is the same as this one, confirm it there: run \`citelens pair ${digits}\`. Waiting for your confirmation; the request expires in ${minutes(expiresIn)}.`,
          );
        },
      });
      const paired = { ...current, token };
      await save(paired);
      set('checking', 'Paired: the token is saved. Checking the connection…');
      try {
        const about = await check(paired);
        set('paired', `Paired with CiteLens companion ${about.version} (${about.model}); the token is saved.`);
      } catch (error) {
        set('error', `Paired and saved, but the connection test failed: ${toUserError(error).message}`);
      }
    } catch (error) {
      if (controller.signal.aborted) {
        set('cancelled', 'Pairing cancelled. The request in the terminal expires by itself; nothing was saved.');
      } else {
        set('error', toUserError(error).message);
      }
    } finally {
      if (running === controller) running = null;
    }
  }

  button.addEventListener('click', start);
  cancel.addEventListener('click', () => running?.abort(new Error('cancelled')));
  set('idle', '');
  return { start };
}
