// The pages and window sizes of the screen tests (e2e/screen.test.js, e2e/screen-firefox.test.js),
// and the stand-in companion's verdicts for them: every kind a badge can show, the long reasons
// and markers that cut words before (issue 60).

/** Window sizes a reader has: a small laptop and a full-HD screen. */
export const SCREENS = [
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
];

const FOLD = { container: '.fold', open: '[aria-label="Show more AI Overview"]', next: '.things' };

/** A dark page (Perplexity's markup) and Google's AI Overview with its fold, light and dark. */
export const SCREEN_PAGES = [
  { name: 'perplexity-dark', fixture: 'perplexity.html', answer: '#markdown-content-0' },
  { name: 'google-fold-light', fixture: 'google-ai-overview-fold.html', answer: '[data-container-id="main-col"]', fold: FOLD },
  { name: 'google-fold-dark', fixture: 'google-ai-overview-fold.html?theme=dark', answer: '[data-container-id="main-col"]', fold: FOLD },
];

const TAMIL =
  'the answer is in Tamil; CiteLens reads English, Bulgarian, French, Greek, Indonesian, Italian, Portuguese, Spanish and Vietnamese';

/**
 * The verdict of each sentence, by its place: every kind in turn (likely support, a contradicted
 * one, a language no model reads with its long reason, a dead link); a sentence citing nothing
 * has no citation.
 * @param {{index: number, citations: string[]}} s
 */
export function screenVerdict(s) {
  if (!s.citations.length) return { judgment: 'no_citation' };
  return [
    { judgment: 'complete_support', confidence: 'high' },
    { judgment: 'complete_support', confidence: 'low' },
    { judgment: 'no_support', contradicted: true },
    { judgment: 'partial_support' },
    { judgment: 'not_checked', reason: TAMIL },
    { judgment: 'inaccessible', reason: "dead link (the site's name does not resolve)" },
    { judgment: 'no_support' },
  ][s.index % 7];
}

/**
 * Runs in the page: the sentences the fold hides (all their lines below its cut), and the
 * visible badges that stand beside the page's next section.
 * @param {{container: string, next: string}} fold
 */
export function foldState({ container, next }) {
  const box = document.querySelector(container).getBoundingClientRect();
  const hiddenSentences = [...document.querySelector(container).querySelectorAll('.T286Pc')]
    .filter((s) => [...s.getClientRects()].every((r) => r.top >= box.bottom - 1))
    .map((s) => s.textContent.replace(/\s+/g, ' ').trim());
  const section = document.querySelector(next).getBoundingClientRect();
  const root = document.querySelector('citelens-overlay').shadowRoot;
  const badgesBesideNext = [...root.querySelectorAll('.badge')]
    .filter((b) => !b.hidden)
    .map((b) => ({ index: Number(b.dataset.index), box: b.getBoundingClientRect().toJSON() }))
    .filter(({ box: b }) => b.top < section.bottom && b.bottom > section.top);
  return { hiddenSentences, badgesBesideNext };
}
