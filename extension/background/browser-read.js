/*
 * Reads cited pages with the reader's own browser (cookies, subscription), for the sources the
 * companion was turned away from, after the reader pressed "Read through my browser" and granted
 * the host permission. Runs in: the service worker / background script.
 *
 * Only what the reader asked for is fetched; a host that is this machine or its network is never
 * fetched (shared/browser-read.js, the rules of url-rules.json), nor kept when a redirect ends
 * there; only text/html and text/plain; each page within a time limit and a size cap; and what
 * is read goes nowhere but the local companion.
 */
import '../shared/url-rules.js';
import '../shared/browser-read.js';

const { browserRead } = /** @type {any} */ (globalThis).CiteLens;

// As the companion's own fetch (companion/config.py): a page that takes longer is not coming.
export const READ_TIMEOUT_MS = 15_000;
// Decoded bytes read at most from one page, as the companion's max_page_bytes.
export const MAX_PAGE_BYTES = 5 * 1024 * 1024;
// The companion takes request bodies up to 1 MiB (docs/THREAT_MODEL.md); the pages sent inline
// share what is left of it after the answer and its citations.
export const INLINE_BUDGET_CHARS = 900_000;
const TEXT_TYPES = ['text/html', 'text/plain'];

/**
 * @typedef {{html?: string, text?: string, via: 'browser', error?: string}} InlinePage
 *   an inline source of the verify request (docs/api.md): the page, or why the browser could
 *   not read it either
 */

/**
 * Reads each page; never throws. A page the browser could not read becomes `{via, error}`, so
 * the companion reports it with the browser's reason.
 * @param {string[]} urls
 * @param {string[]} allowPrivate  the companion's --allow-private list (its health)
 * @param {{fetch?: typeof fetch, timeoutMs?: number, maxBytes?: number}} [options]  fetch: test hook
 * @returns {Promise<Record<string, InlinePage>>}
 */
export async function readPages(urls, allowPrivate, options = {}) {
  const pages = await Promise.all(urls.map((url) => readPage(url, allowPrivate, options)));
  /** @type {Record<string, InlinePage>} */
  const out = {};
  const budget = Math.floor(INLINE_BUDGET_CHARS / Math.max(1, urls.length));
  urls.forEach((url, i) => (out[url] = fit(pages[i], budget)));
  return out;
}

/**
 * @param {string} url @param {string[]} allowPrivate
 * @param {{fetch?: typeof fetch, timeoutMs?: number, maxBytes?: number}} options
 * @returns {Promise<InlinePage>}
 */
async function readPage(url, allowPrivate, options) {
  const refused = browserRead.refusal(url, allowPrivate);
  if (refused) return { via: 'browser', error: refused };
  const get = options.fetch || fetch;
  let response;
  try {
    response = await get(url, {
      credentials: 'include',
      redirect: 'follow',
      cache: 'no-store',
      signal: AbortSignal.timeout(options.timeoutMs || READ_TIMEOUT_MS),
    });
  } catch (error) {
    const name = /** @type {Error} */ (error).name;
    // Offline is said as offline (issue 60), not as a fault of the site.
    if (globalThis.navigator && navigator.onLine === false) return { via: 'browser', error: 'no network (your browser is offline too)' };
    return { via: 'browser', error: name === 'TimeoutError' || name === 'AbortError' ? 'timeout (the site took too long)' : 'network error (the connection failed)' };
  }
  // A redirect may end somewhere the reader never chose; what arrives from a private host is dropped.
  const landed = browserRead.refusal(response.url || url, allowPrivate);
  if (landed) return { via: 'browser', error: `redirected: ${landed}` };
  if (!response.ok) return { via: 'browser', error: `http ${response.status}` };
  const type = (response.headers.get('content-type') || '').split(';')[0].trim().toLowerCase();
  if (!TEXT_TYPES.includes(type)) return { via: 'browser', error: `not text (${type || 'no content type'})` };
  let body;
  try {
    body = await readCapped(response, options.maxBytes || MAX_PAGE_BYTES, charsetOf(response.headers.get('content-type') || ''));
  } catch (error) {
    return { via: 'browser', error: String(/** @type {Error} */ (error).message || error) };
  }
  return type === 'text/plain' ? { via: 'browser', text: body } : { via: 'browser', html: body };
}

/** @param {Response} response @param {number} cap @param {string} charset */
async function readCapped(response, cap, charset) {
  let decoder;
  try {
    decoder = new TextDecoder(charset || 'utf-8');
  } catch {
    decoder = new TextDecoder('utf-8');
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  let size = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > cap) {
      await reader.cancel();
      throw new Error(`page too large (over ${cap >= 1_000_000 ? `${Math.round(cap / 1_000_000)} MB` : `${Math.round(cap / 1000)} kB`})`);
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}

/** @param {string} contentType */
function charsetOf(contentType) {
  const match = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType);
  return match ? match[1] : '';
}

/**
 * A page within its share of the request: scripts, styles, SVG and comments go first (the
 * companion's extractor drops them anyway); a page still too big is not sent, and says why.
 * @param {InlinePage} page @param {number} budget  characters
 * @returns {InlinePage}
 */
export function fit(page, budget) {
  const body = page.html ?? page.text;
  if (body === undefined || body.length <= budget) return page;
  if (page.html !== undefined) {
    const lean = page.html.replace(/<(script|style|svg|noscript|template)\b[\s\S]*?<\/\1\s*>/gi, '').replace(/<!--[\s\S]*?-->/g, '');
    if (lean.length <= budget) return { via: 'browser', html: lean };
  }
  return { via: 'browser', error: `page too large to hand to the companion (${Math.round(body.length / 1000)} thousand characters)` };
}
