/*
 * What can go wrong between the extension and the companion, worded for the reader with the
 * one thing to do about it. Runs in: the service worker and the options page.
 *
 *   CompanionError
 *     not_running   nothing answers at the address (connection refused, timeout)
 *     not_paired    no token saved yet
 *     bad_token     401
 *     forbidden     403/421: the companion refused this extension's origin or the Host
 *     too_old       /v1/verify is 404/405, health has no or a lower version, or it is not CiteLens
 *     rejected      400/413/422/429: the companion's own message says why
 *     failed        5xx, or the stream's `error` line (the companion failed after its 200)
 *     stopped       the stream's `error` line says `citelens serve` was stopped while checking
 *     network       the request was cut before any answer line
 *     partial       the stream broke after some lines, with no `error` line to say why
 */

import '../shared/i18n.js';

const { t, plural } = /** @type {any} */ (globalThis).CiteLens.i18n;

export const MIN_COMPANION_VERSION = '0.2.0';

export class CompanionError extends Error {
  /**
   * @param {string} code
   * @param {string} message  shown to the reader as is
   * @param {{status?: number, received?: number}} [detail]
   */
  constructor(code, message, detail = {}) {
    super(message);
    this.code = code;
    this.status = detail.status;
    this.received = detail.received;
  }
}

export const words = {
  /** @param {string} base */
  notRunning: (base) => t('error_not_running', base),
  notPaired: () => t('error_not_paired'),
  badToken: () => t('error_bad_token'),
  /** @param {number} status @param {string} detail */
  forbidden: (status, detail) => t('error_forbidden', statusWhy(status, detail)),
  /** @param {string} base @param {string} version */
  tooOld: (base, version) =>
    version ? t('error_too_old', base, version, MIN_COMPANION_VERSION) : t('error_too_old_no_version', base, MIN_COMPANION_VERSION),
  /** @param {string} base */
  notCompanion: (base) => t('error_not_companion', base),
  /**
   * @param {number} status @param {string} detail
   * @param {string} [field]  the request field the companion names (its error's `field`); read
   *   from the start of its message when not given ("citations[0].marker is longer than …")
   */
  rejected: (status, detail, field = fieldOf(detail)) => {
    const what = statusWhy(status, detail);
    // Only the answer's own length makes an answer "too long"; a refused field (a marker, a URL,
    // the page title) is something CiteLens read wrongly from the page, and says so.
    if ((status === 413 || status === 422) && field && !/^(answer(\.text)?|\$)$/.test(field)) return t('error_misread', what);
    if (status === 413) return t('error_too_long', what);
    if (status === 422) return t('error_unreadable', what);
    if (status === 429) return t('error_busy', what);
    return t('error_rejected', what);
  },
  /** @param {number} status @param {string} detail */
  failed: (status, detail) => t('error_failed', statusWhy(status, detail)),
  /** @param {string} base @param {string} why */
  network: (base, why) => t('error_network', base, why),
  /**
   * The stream's last line was `error` (api.md): why, in the companion's words unless it was only
   * stopped, and what to do; "Partial results: …" first when some sentences came.
   * @param {string} code @param {string} detail @param {number} received @param {number} expected
   */
  streamError: (code, detail, received, expected) => {
    const why = code === 'stopped' ? t('error_stream_stopped') : t('error_stream_failed', detail || code);
    return received ? plural(expected || 2, 'error_stream_partial_one', 'error_stream_partial_other', received, expected || '?', why) : why;
  },
  /** @param {number} received @param {number} expected @param {string} why */
  partial: (received, expected, why) => plural(expected || 2, 'error_partial_one', 'error_partial_other', received, expected || '?', why),
};

/** "401", "413: the answer is longer than …": the status and the companion's own words (not translated). @param {number} status @param {string} detail */
function statusWhy(status, detail) {
  return detail ? `${status}: ${detail}` : String(status);
}

/**
 * The field a companion message starts with: "citations[3].marker is longer than 64 characters"
 * → "citations[3].marker"; '' for a message in words ("the answer is longer than …").
 * @param {string} detail
 */
export function fieldOf(detail) {
  const match = /^((?:answer|page|citations|sources|options)(?:\[[^\]]*\]|\.[\w$]+)*)\s/.exec(detail);
  return match ? match[1] : '';
}

/**
 * @param {unknown} error
 * @returns {{code: string, message: string}}
 */
export function toUserError(error) {
  if (error instanceof CompanionError) return { code: error.code, message: error.message };
  return { code: 'internal', message: t('error_internal', String(error)) };
}

/**
 * "0.1.10" ≥ "0.1.9": numeric, part by part; pre-release tags are ignored.
 * @param {string} version @param {string} minimum
 */
export function versionAtLeast(version, minimum) {
  const parts = (/** @type {string} */ v) => v.split(/[.+-]/).slice(0, 3).map((p) => parseInt(p, 10) || 0);
  const a = parts(version);
  const b = parts(minimum);
  for (let i = 0; i < 3; i++) {
    if ((a[i] || 0) !== (b[i] || 0)) return (a[i] || 0) > (b[i] || 0);
  }
  return true;
}
