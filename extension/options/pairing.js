/*
 * "Pair with the companion": asks the companion for a pairing request, shows its code, and says
 * in words what happens while the reader compares it with the terminal's and confirms there with
 * `citelens pair CODE`; the token then arrives and is saved. Runs in: the options page.
 */
import { pairWithCompanion, testConnection } from '../background/companion.js';
import { toUserError } from '../background/errors.js';
import '../shared/i18n.js';

const { t, plural } = /** @type {any} */ (globalThis).CiteLens.i18n;

/**
 * Writes `text` into `el` as text nodes; `backticks` become <code>. Never HTML: messages can
 * quote what the companion said.
 * @param {HTMLElement} el @param {string} kind @param {string} text
 */
export function showText(el, kind, text) {
  el.className = kind;
  /** @type {any} */ (globalThis).CiteLens.i18n.showText(el, text);
}

/** "5 minutes", "40 seconds". @param {number} seconds */
function minutes(seconds) {
  if (seconds >= 90) return plural(Math.round(seconds / 60), 'duration_minutes_one', 'duration_minutes_other', Math.round(seconds / 60));
  const s = Math.max(1, Math.round(seconds));
  return plural(s, 'duration_seconds_one', 'duration_seconds_other', s);
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
    set('asking', t('pair_asking', current.companion));
    try {
      const token = await pair(current.companion, {
        signal: controller.signal,
        onCode(digits, expiresIn) {
          code.textContent = digits.split('').join(' ');
          code.setAttribute('aria-label', t('pair_code_label', digits.split('').join(' ')));
          code.hidden = false;
          set('waiting', t('pair_waiting', digits, minutes(expiresIn)));
        },
      });
      const paired = { ...current, token };
      await save(paired);
      set('checking', t('pair_checking'));
      try {
        const about = await check(paired);
        set('paired', t('pair_done', about.version, about.model));
      } catch (error) {
        set('error', t('pair_test_failed', toUserError(error).message));
      }
    } catch (error) {
      if (controller.signal.aborted) {
        set('cancelled', t('pair_cancelled'));
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
