import { countsProblem } from './screen.js';

// Reading the overlay the way a reader (or a screen reader) meets it: badges by their names,
// cards by focus, the summary bar's words. Shared by the Chromium and Firefox tests; works on
// Playwright and Puppeteer pages alike (only `evaluate` and `waitForFunction` are used).

/**
 * The badge names the overlay may give (overlay/labels.js): the sentence's number, its verdict
 * on its sources as the page marks them ("source archi +2", "sources [1] and [2]": the engine's
 * own markers, issue 36 item 6.2), and what pressing does; support found in a page the sentence
 * does not cite adds "; found in [4]" (or the page's host) and the card has evidence.
 */
export const BADGE_LABEL =
  /^Sentence \d+: (?:(?:fully supported by|likely supported by|partly supported by|not supported by|contradicted by|could not read) (?:source [^;—]+|sources [^;—]+ and [^;—]+)(?: — show (?:evidence|details)|; found in [^;—]+ — show evidence)|no citation(?:; found in [^;—]+ — show evidence)?)$/;

/**
 * Waits for the stream to finish, returning when the first badge and the summary appeared,
 * in ms after `since`. Every page of the end-to-end suite comes through here, so here the
 * summary's counts are checked to add up to the sentences shown (issue 60 item 2): it throws,
 * in words, when they do not.
 */
export async function waitForResults(page, since, timeout = 120_000) {
  let first = null;
  const deadline = Date.now() + timeout;
  for (;;) {
    const state = await page.evaluate(() => {
      const root = document.querySelector('citelens-overlay')?.shadowRoot;
      return {
        badges: root ? root.querySelectorAll('.badge').length : 0,
        done: !!root?.querySelector('.bar button[data-action="export"]'),
        counts: root?.querySelector('.bar .counts')?.textContent ?? '',
        error: root?.querySelector('.bar.error')?.textContent || '',
      };
    });
    if (state.badges && first === null) first = Date.now() - since;
    if (state.done) {
      const last = Date.now() - since;
      const problem = countsProblem(state.counts, state.badges);
      if (problem) throw new Error(problem);
      return { first: first ?? last, last };
    }
    if (state.error) throw new Error(`the overlay shows an error: ${state.error}`);
    if (Date.now() > deadline) throw new Error(`no summary after ${timeout} ms (${state.badges} badges)`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** How many layout passes the overlay has finished: its host's `data-layout`. */
export function layoutPasses(page) {
  return page.evaluate(() => Number(document.querySelector('citelens-overlay')?.dataset.layout || 0));
}

/**
 * Waits until the overlay finishes a layout pass after the `passes`-th: read `passes` before a
 * scroll, resize or re-render, and the badges then stand where that left the page, not where a
 * pass begun before it had put them. Resolves with the new count.
 */
export function afterLayout(page, passes, timeout = 15_000) {
  return page.evaluate(
    ([after, ms]) =>
      new Promise((resolve, reject) => {
        const host = document.querySelector('citelens-overlay');
        const count = () => Number(host.dataset.layout || 0);
        if (count() > after) return resolve(count());
        const observer = new MutationObserver(() => {
          if (count() <= after) return;
          observer.disconnect();
          clearTimeout(timer);
          resolve(count());
        });
        const timer = setTimeout(() => {
          observer.disconnect();
          reject(new Error(`no layout pass after the ${after}th in ${ms} ms`));
        }, ms);
        observer.observe(host, { attributes: true, attributeFilter: ['data-layout'] });
      }),
    [passes, timeout],
  );
}

/**
 * Has the overlay lay out the page as it is now, as on a resize, and waits for that pass: after
 * the stream, the last badges' pass may still be due when the summary shows.
 */
export async function layoutNow(page) {
  const passes = await layoutPasses(page);
  await page.evaluate(() => window.dispatchEvent(new Event('resize')));
  return afterLayout(page, passes);
}

/** Badges, the bar's text and the sizes of the highlights. */
export function readOverlay(page) {
  return page.evaluate(() => {
    const root = document.querySelector('citelens-overlay').shadowRoot;
    const highlights = {};
    if (globalThis.CSS && CSS.highlights) CSS.highlights.forEach((h, name) => (highlights[name] = h.size));
    return {
      badges: [...root.querySelectorAll('.badge')].map((b) => ({
        tag: b.tagName,
        index: Number(b.dataset.index),
        kind: b.dataset.kind,
        judgment: b.dataset.judgment,
        label: b.getAttribute('aria-label'),
        icon: b.querySelector('.icon')?.textContent,
        word: b.querySelector('.icon')?.nextElementSibling?.textContent,
        hidden: b.hidden,
      })),
      // "CiteLens" then the parts, one line each: joined as "CiteLens9 of 14 … · …".
      bar: root.querySelector('.bar').innerText.replace(/^CiteLens\s*/, 'CiteLens').replace(/\s*\n\s*/g, ' '),
      highlights,
    };
  });
}

/**
 * Focuses each badge in turn, as a keyboard user would, and reads the sentence its card shows;
 * Esc closes each card and must give focus back to the badge.
 */
export function verdictsByText(page) {
  return page.evaluate(async () => {
    const root = document.querySelector('citelens-overlay').shadowRoot;
    const out = [];
    for (const badge of root.querySelectorAll('.badge')) {
      badge.focus();
      const card = root.querySelector('.card');
      if (card.hidden) throw new Error(`focus on badge ${badge.dataset.index} did not open its card`);
      out.push({
        index: Number(badge.dataset.index),
        kind: badge.dataset.kind,
        text: card.querySelector('.statement').textContent,
        // The card says the sentence is cited by its paragraph's link (issue 25).
        citedByBlock: !!card.querySelector('.cited-by'),
      });
      document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
      if (!card.hidden) throw new Error('Esc did not close the card');
      if (root.activeElement !== badge) throw new Error('Esc did not give focus back to the badge');
    }
    root.activeElement?.blur();
    return out;
  });
}

/**
 * Matches each expected sentence (by a fragment of its text) to a verdict. Verdicts that follow
 * from the pipeline alone (a dead link, no citation) must match; the model's calls are counted.
 * A `likely_support` badge is complete support read with low confidence (issue 58): its judgment
 * is complete_support, so it agrees with a fixture that means complete_support, and with nothing
 * else. `greenContradicted` lists the sentences written to be contradicted (their articles refute
 * them) that the overlay shows as supported at all, fully or likely: the trust requirement,
 * which has no tolerance (issue 36 item 5).
 * @param {{kind: string, text: string}[]} verdicts
 * @param {Record<string, string[]>} expect  fragment → acceptable kinds
 */
export function compareVerdicts(verdicts, expect) {
  const FACTS = ['inaccessible', 'no_citation'];
  const SUPPORTED = ['complete_support', 'likely_support'];
  const result = { agreed: 0, judged: 0, disagreements: [], greenContradicted: [] };
  for (const [fragment, allowed] of Object.entries(expect)) {
    const found = verdicts.find((v) => v.text.includes(fragment));
    if (!found) throw new Error(`no badge for the sentence with "${fragment}" (have: ${verdicts.map((v) => v.text).join(' | ')})`);
    if (allowed.some((k) => FACTS.includes(k))) {
      if (!allowed.includes(found.kind)) throw new Error(`"${fragment}": ${found.kind}, expected ${allowed.join(' or ')}`);
      continue;
    }
    result.judged++;
    if (allowed.includes('contradicted') && !allowed.includes('complete_support') && SUPPORTED.includes(found.kind)) {
      result.greenContradicted.push(found.text);
    }
    const judgment = found.kind === 'likely_support' ? 'complete_support' : found.kind;
    if (allowed.includes(judgment)) result.agreed++;
    else result.disagreements.push({ sentence: found.text, model: found.kind, intended: allowed });
  }
  return result;
}

/**
 * Totals of compareVerdicts over several pages, with each disagreement on a line of its own.
 * @param {Record<string, {agreed: number, judged: number, disagreements: {sentence: string, model: string, intended: string[]}[]}>} byPage
 */
export function agreementOf(byPage) {
  const all = Object.entries(byPage);
  return {
    agreed: all.reduce((n, [, a]) => n + a.agreed, 0),
    judged: all.reduce((n, [, a]) => n + a.judged, 0),
    disagreements: all.flatMap(([page, a]) =>
      a.disagreements.map((d) => `${page}: "${d.sentence}": the model says ${d.model}, the fixture means ${d.intended.join(' or ')}`),
    ),
    greenContradicted: all.flatMap(([page, a]) => (a.greenContradicted || []).map((text) => `${page}: "${text}"`)),
  };
}

/**
 * Opens the card of the sentence `text` by focusing its badge and reads it: its verdict, its
 * quotes as plain blockquotes, and its labelled groups ("Supports:", "Says otherwise:") with
 * their quotes and links. Esc closes it again.
 * @returns {Promise<{kind: string, quotes: string[], links: string[], groups: {kind: string, label: string, quotes: string[], links: string[]}[]} | null>}
 */
export function readCard(page, text) {
  return page.evaluate((sentence) => {
    const root = document.querySelector('citelens-overlay').shadowRoot;
    for (const badge of root.querySelectorAll('.badge')) {
      badge.focus();
      const card = root.querySelector('.card');
      if (card.querySelector('.statement').textContent !== sentence) continue;
      const words = (els) => [...els].map((e) => e.textContent.replace(/\s+/g, ' ').trim());
      const out = {
        kind: badge.dataset.kind,
        quotes: words(card.querySelectorAll('blockquote')),
        links: [...card.querySelectorAll('a.open')].map((a) => a.getAttribute('href')),
        groups: [...card.querySelectorAll('.quotes')].map((g) => ({
          kind: g.classList.contains('says-otherwise') ? 'says-otherwise' : 'supports',
          label: g.querySelector('.quote-label')?.textContent ?? '',
          quotes: words(g.querySelectorAll('blockquote')),
          links: [...g.querySelectorAll('a.open')].map((a) => a.getAttribute('href')),
        })),
      };
      return out;
    }
    return null;
  }, text);
}
