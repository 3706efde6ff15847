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
 *     failed        5xx
 *     network       the request was cut before any answer line
 *     partial       the stream broke after some lines
 */

export const MIN_COMPANION_VERSION = '0.1.0';

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
  notRunning: (base) =>
    `The CiteLens companion is not running at ${base}. Start it with \`citelens serve\` and try again.`,
  notPaired: () =>
    'CiteLens is not paired with its companion yet: open CiteLens options and press Pair with the companion (or paste the token from `citelens token`).',
  badToken: () =>
    'The companion did not accept the pairing token (401): open CiteLens options and press Pair with the companion (or paste the token from `citelens token`).',
  /** @param {number} status @param {string} detail */
  forbidden: (status, detail) =>
    `The companion refused this extension (${status}${detail ? `: ${detail}` : ''}). Check the address in CiteLens options and restart \`citelens serve\`.`,
  /** @param {string} base @param {string} version */
  tooOld: (base, version) =>
    `The companion at ${base} is too old for this extension (${version ? `version ${version}` : 'no version'}; needs ${MIN_COMPANION_VERSION} or newer). Update CiteLens and restart \`citelens serve\`.`,
  /** @param {string} base */
  notCompanion: (base) =>
    `Something else answers at ${base}: it is not the CiteLens companion. Check the address in CiteLens options.`,
  /**
   * @param {number} status @param {string} detail
   * @param {string} [field]  the request field the companion names (its error's `field`); read
   *   from the start of its message when not given ("citations[0].marker is longer than …")
   */
  rejected: (status, detail, field = fieldOf(detail)) => {
    const what = `(${status}${detail ? `: ${detail}` : ''})`;
    // Only the answer's own length makes an answer "too long"; a refused field (a marker, a URL,
    // the page title) is something CiteLens read wrongly from the page, and says so.
    if ((status === 413 || status === 422) && field && !/^(answer(\.text)?|\$)$/.test(field)) {
      return `The companion could not read this answer ${what}: CiteLens read that part of the page wrongly. Select the answer text and click again; if it happens again, this page's markup is new to CiteLens.`;
    }
    const why = {
      413: 'The answer is too long for the companion',
      422: 'The companion could not read this answer',
      429: 'The companion is busy with other checks',
    }[status] || 'The companion could not check this answer';
    return `${why} ${what}.${status === 429 ? ' Try again in a moment.' : ''}`;
  },
  /** @param {number} status @param {string} detail */
  failed: (status, detail) =>
    `The companion failed while checking (${status}${detail ? `: ${detail}` : ''}). Its terminal, where \`citelens serve\` runs, shows why.`,
  /** @param {string} base @param {string} why */
  network: (base, why) =>
    `Lost the connection to the companion at ${base} before it answered (${why}). Check that \`citelens serve\` is still running and click again.`,
  /** @param {number} received @param {number} expected @param {string} why */
  partial: (received, expected, why) =>
    `Partial results: the companion stopped after ${received} of ${expected || '?'} sentences (${why}). Click the CiteLens button to try again.`,
};

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
  return { code: 'internal', message: `CiteLens hit an unexpected error: ${String(error)}` };
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
