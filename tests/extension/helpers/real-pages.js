// Real AI-answer pages that other people saved (../shared/data/ai-pages/<engine>/*.html.gz, each
// with a SOURCE.json naming its repository and licence). They are read where they lie, never
// copied into this repository. Every page in the folder is used, so pages added later (those kept
// back to tell whether the adapters generalise) are tested without a change here.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** CITELENS_AI_PAGES overrides the folder; by default ../shared/data/ai-pages beside the repository. */
export const AI_PAGES = process.env.CITELENS_AI_PAGES || path.resolve(ROOT, '../shared/data/ai-pages');
/** Expected captures, one JSON file per page, beside the engine fixtures. */
export const EXPECTED = fileURLToPath(new URL('../../fixtures/engines/real-pages/', import.meta.url));

/**
 * Where each engine serves its answers: the page is loaded at such a URL, so the adapter is
 * chosen by URL as on the live site. Folder names and SOURCE.json `engine` values both work.
 * @type {Record<string, (slug: string) => string>}
 */
const ENGINE_URLS = {
  perplexity: (slug) => `https://www.perplexity.ai/search/${slug}`,
  chatgpt: (slug) => `https://chatgpt.com/c/${slug}`,
  'chatgpt-search': (slug) => `https://chatgpt.com/c/${slug}`,
  'google-ai-mode': (slug) => `https://www.google.com/search?q=${slug}&udm=50`,
  'google-ai-overview': (slug) => `https://www.google.com/search?q=${slug}`,
  copilot: (slug) => `https://copilot.microsoft.com/chats/${slug}`,
  phind: (slug) => `https://www.phind.com/search?cache=${slug}`,
};

/**
 * @typedef {object} RealPage
 * @property {string} id        "<engine>/<name>", also the expected file's name (with / → --)
 * @property {string} engine    the folder
 * @property {string} file      the .html.gz
 * @property {Record<string, unknown>} source  its SOURCE.json
 * @property {string} url       the engine's own URL for it
 * @property {string} expected  path of its expected capture
 * @property {() => string} html
 */

/**
 * Every saved page. Throws, in words, when the folder is missing: a test that found no pages
 * must fail, not pass.
 * @returns {RealPage[]}
 */
export function realPages() {
  if (!existsSync(AI_PAGES)) {
    throw new Error(
      `The real engine pages are missing: no folder ${AI_PAGES}. Clone the shared data beside the ` +
        'repository (../shared/data/ai-pages/<engine>/*.html.gz) or set CITELENS_AI_PAGES to that folder.',
    );
  }
  const pages = [];
  for (const engine of readdirSync(AI_PAGES).sort()) {
    const dir = path.join(AI_PAGES, engine);
    if (!existsSync(dir) || !readdirSync(dir).length) continue;
    for (const name of readdirSync(dir).filter((f) => f.endsWith('.html.gz')).sort()) {
      const base = name.replace(/\.html\.gz$/, '');
      const sourceFile = path.join(dir, `${base}.SOURCE.json`);
      const source = existsSync(sourceFile) ? JSON.parse(readFileSync(sourceFile, 'utf8')) : {};
      const urlFor = ENGINE_URLS[engine] || ENGINE_URLS[String(source.engine)];
      const slug = base.replace(/[^a-z0-9-]+/gi, '-').toLowerCase();
      pages.push({
        id: `${engine}/${base}`,
        engine,
        file: path.join(dir, name),
        source,
        url: urlFor ? urlFor(slug) : `https://answers.example/${engine}/${slug}`,
        expected: path.join(EXPECTED, `${engine}--${base}.expected.json`),
        html: () => gunzipSync(readFileSync(path.join(dir, name))).toString('utf8'),
      });
    }
  }
  if (!pages.length) throw new Error(`No saved pages (*.html.gz) under ${AI_PAGES}.`);
  return pages;
}

/**
 * Sentences as a reader counts them, roughly as the companion splits them (ends of sentences in
 * any script, and line breaks: headings and list items stand alone). For checks, not judging.
 * @param {string} text
 */
export function roughSentences(text) {
  return text
    .split(/\n|(?<=[.!?。！？])\s+|(?<=[。！？])/u)
    .map((s) => s.trim())
    .filter((s) => /[\p{L}\p{N}]/u.test(s));
}

/**
 * Where an engine's answer is, read independently of the adapters (docs/engines.md's real captures):
 * a sentence badged outside `inside`, or inside `outside` (questions, source cards, agent steps,
 * tool output), is a badge outside the answer.
 * @type {Record<string, {inside: string, outside: string}>}
 */
export const ANSWER_REGIONS = {
  perplexity: {
    inside: "[id^='markdown-content-'], [class*='prose']",
    outside: "[class*='group/query'], [data-testid^='asset-card'], [role='tabpanel']:not([id$='-content-default']):not([id$='-content-thread'])",
  },
  chatgpt: { inside: "[data-message-author-role='assistant']", outside: "[data-message-author-role='user']" },
  'google-ai-mode': {
    inside: "[data-subtree='aimc'] [data-container-id='main-col'], [data-subtree='aimc']",
    outside: "[data-container-id='rhs-col'], ul.bTFeG, [data-xid='aim-aside-initial-corroboration-container'], [role='heading'][aria-level='2']",
  },
  'google-ai-overview': {
    inside: 'div.LT6XE, #m-x-content, [data-mcpr]',
    outside: "[data-container-id='rhs-col'], ul.bTFeG, li.LLtSOc, [data-source-column], [role='heading']",
  },
};
ANSWER_REGIONS['chatgpt-search'] = ANSWER_REGIONS.chatgpt;

/** @param {RealPage} page */
export function answerRegion(page) {
  const region = ANSWER_REGIONS[page.engine] || ANSWER_REGIONS[String(page.source.engine)];
  if (!region) throw new Error(`No answer region is known for engine "${page.engine}": add it to ANSWER_REGIONS.`);
  return region;
}

/**
 * Runs in the page: the sentences the overlay marked (its CSS highlights), those that lie outside
 * the answer region, and the visible badges beside no visible line of the answer or outside its
 * box (besideNothing, outsideBox: sentence indices). Works on Playwright and Puppeteer pages alike.
 * @param {{inside: string, outside: string}} region
 */
export function badgePlacement(region) {
  const root = document.querySelector('citelens-overlay')?.shadowRoot;
  const badges = root ? [...root.querySelectorAll('.badge')] : [];
  const ranges = [];
  CSS.highlights.forEach((highlight, name) => name !== 'citelens-evidence' && ranges.push(...highlight));
  const holder = (range) => {
    const node = range.commonAncestorContainer;
    return node.nodeType === 1 ? node : node.parentElement;
  };
  const outside = ranges.filter((range) => {
    const el = holder(range);
    return !el || !el.closest(region.inside) || !!el.closest(region.outside);
  });
  // Issue 60: each visible badge beside a line of the answer the page shows (not folded away,
  // not under something else) and inside the answer's own box, never in the gutter below it.
  const host = document.querySelector('citelens-overlay');
  const roots = [...new Set(ranges.map((range) => holder(range)?.closest(region.inside)).filter(Boolean))];
  const answerBox = roots.map((el) => el.getBoundingClientRect()).reduce(
    (a, r) => ({ top: Math.min(a.top, r.top), bottom: Math.max(a.bottom, r.bottom) }),
    { top: Infinity, bottom: -Infinity },
  );
  // A line shows when the page's element at its middle is of the text's own block (the block,
  // or a word or chip in it), not of something laid over it or a fold cutting it away.
  const blockOf = (node) => {
    let el = node.parentElement;
    while (el.parentElement && getComputedStyle(el).display.startsWith('inline')) el = el.parentElement;
    return el;
  };
  const lines = [];
  for (const el of roots) {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.data.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const r of range.getClientRects()) {
        if (r.width < 1 || r.bottom <= 0 || r.top >= innerHeight || r.right <= 0 || r.left >= innerWidth) continue;
        // At its start, middle and end: a line partly under something else still shows.
        const shows = [r.left + 6, r.left + r.width / 2, r.right - 6].some((x) => {
          const hit = document.elementsFromPoint(Math.min(Math.max(x, 0), innerWidth - 1), r.top + r.height / 2).find((e) => e !== host);
          return hit && blockOf(node).contains(hit);
        });
        if (shows) lines.push(r);
      }
    }
  }
  const visible = badges.filter((b) => !b.hidden).map((b) => ({ index: Number(b.dataset.index), box: b.getBoundingClientRect() }));
  const besideNothing = visible.filter(({ box }) => !lines.some((l) => box.top < l.bottom - 0.5 && l.top < box.bottom - 0.5)).map((b) => b.index);
  const outsideBox = visible.filter(({ box }) => box.top < answerBox.top - 4 || box.bottom > answerBox.bottom + 4).map((b) => b.index);
  return {
    besideNothing,
    outsideBox,
    badges: badges.length,
    shown: badges.filter((b) => !b.hidden).length,
    cited: badges.filter((b) => b.dataset.kind !== 'no_citation').length,
    kinds: badges.reduce((n, b) => ((n[b.dataset.kind] = (n[b.dataset.kind] || 0) + 1), n), {}),
    ranges: ranges.length,
    outside: outside.map((range) => range.toString().slice(0, 80)),
  };
}

/**
 * Presses the toolbar button and waits for the overlay to appear. Under load a click sent over
 * CDP/BiDi is now and then lost before the extension sees it (no injection, no overlay, no
 * error); the button is then pressed once more, and said so, as a reader would press it again.
 * @param {{evaluate: Function}} page @param {() => Promise<void>} press
 * @returns {Promise<number>} when the last press was sent
 */
export async function pressUntilOverlay(page, press) {
  for (let attempt = 1; ; attempt++) {
    const pressed = Date.now();
    await press();
    while (Date.now() - pressed < 30_000) {
      if (await page.evaluate(() => !!document.querySelector('citelens-overlay'))) return pressed;
      await new Promise((r) => setTimeout(r, 100));
    }
    if (attempt === 2) throw new Error('no overlay 30 s after each of two toolbar clicks');
    console.log('# no overlay 30 s after the toolbar click: pressed again');
  }
}

/**
 * Runs in the page: scrolls the sentence at `fraction` of the marked ones (0 the first, 0.5 the
 * middle one, in the page's order) to the top third of the window, so that what a reader sees
 * there can be measured; a saved page often opens far above its answer.
 * @param {number} fraction
 */
export function scrollToMarked(fraction) {
  const ranges = [];
  CSS.highlights.forEach((highlight, name) => name !== 'citelens-evidence' && ranges.push(...highlight));
  ranges.sort((a, b) => a.compareBoundaryPoints(Range.START_TO_START, b));
  const range = ranges[Math.min(ranges.length - 1, Math.floor(fraction * ranges.length))];
  if (!range) return false;
  const top = range.getBoundingClientRect().top + scrollY - innerHeight / 3;
  const node = range.startContainer;
  (node.nodeType === 1 ? node : node.parentElement).scrollIntoView({ block: 'start' });
  if (Math.abs(scrollY - Math.max(0, top)) > innerHeight) window.scrollTo(0, Math.max(0, top));
  return true;
}
