// The overlay as a first-time reader meets it (issue 15, items 3 to 5), in Chromium and Firefox
// ESR with the real extension, the real toolbar click and the real companion, on the project's
// own engine fixture (Perplexity's markup, a dark page) and on a right-to-left answer (a light
// page): no badge over another badge or over the answer's lines at 1280 and 800 px; the open
// card over no other badge; every badge reached by Tab in sentence order, with its name in the
// accessibility tree; Enter opens the card with focus in it, Esc closes it and gives focus back;
// the summary's list of sentences that need attention, each a link to its sentence and card;
// the colours the browser computes meet WCAG AA on the page they are on.
// Screenshots at both widths go to test-artifacts/.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../helpers/chromium.js';
import { startCompanion } from '../helpers/companion.js';
import { launchFirefox, pasteToken } from '../helpers/firefox.js';
import { startSites } from '../helpers/sites.js';
import { BADGE_LABEL, waitForResults } from '../helpers/overlay.js';

const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url));
const WIDTHS = [1280, 800];
const PAGES = [
  { name: 'perplexity', fixture: 'perplexity.html', rtl: false },
  { name: 'rtl', fixture: 'rtl-perplexity.html', rtl: true },
];

let sites;
let companion;

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  sites = await startSites();
  companion = await startCompanion({ allowPrivate: [new URL(sites.sources).host] });
});

after(async () => {
  await companion?.stop();
  await sites?.close();
});

/**
 * Every visible badge's box, the answer's line boxes (all its text and chips), the open card's
 * box, and the colours the browser computed, read in the page.
 */
function measure(page) {
  return page.evaluate(() => {
    const root = document.querySelector('citelens-overlay').shadowRoot;
    const box = (r) => ({ left: r.left, top: r.top, right: r.right, bottom: r.bottom });
    const answer = document.querySelector('#markdown-content-0');
    const range = document.createRange();
    range.selectNodeContents(answer);
    const card = root.querySelector('.card');
    const background = (el) => {
      for (let e = el; e; e = e.parentElement) {
        const c = getComputedStyle(e).backgroundColor;
        if (c && c !== 'transparent' && !/, 0\)$/.test(c)) return c;
      }
      return 'rgb(255, 255, 255)';
    };
    return {
      badges: [...root.querySelectorAll('.badge')].filter((b) => !b.hidden).map((b) => ({
        index: Number(b.dataset.index),
        compact: b.classList.contains('compact'),
        box: box(b.getBoundingClientRect()),
        color: getComputedStyle(b).color,
        fill: getComputedStyle(b).backgroundColor,
        border: getComputedStyle(b).borderTopColor,
      })),
      lines: [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0).map(box),
      answer: box(answer.getBoundingClientRect()),
      page: background(answer),
      panel: box(root.querySelector('.panel').getBoundingClientRect()),
      card: card.hidden ? null : { index: Number(card.getAttribute('aria-labelledby').replace(/\D+/g, '')), box: box(card.getBoundingClientRect()) },
      width: document.documentElement.clientWidth,
    };
  });
}

const overlaps = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;

/** Waits until two readings a frame or more apart agree (the overlay repositions on resize). */
async function settled(page) {
  let last = '';
  for (let i = 0; i < 50; i++) {
    const now = await measure(page);
    const key = JSON.stringify([now.badges.map((b) => b.box), now.card && now.card.box]);
    if (key === last) return now;
    last = key;
    await new Promise((r) => setTimeout(r, 120));
  }
  throw new Error('the overlay did not settle');
}

/** @param {string} css "rgb(r, g, b)" @returns {number} WCAG relative luminance */
function luminance(css) {
  const [r, g, b] = css.match(/\d+(\.\d+)?/g).slice(0, 3).map(Number).map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
const contrast = (a, b) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
};

/** What the reader must be able to rely on in one window: checked the same way in both browsers. */
function assertLayout(m, { rtl, width, label }) {
  assert.ok(m.badges.length >= 5, `${label}: ${m.badges.length} badges in view`);
  assert.ok(m.lines.length >= 3, `${label}: ${m.lines.length} line boxes`);
  for (const [i, a] of m.badges.entries()) {
    for (const b of m.badges.slice(i + 1)) assert.ok(!overlaps(a.box, b.box), `${label}: badges ${a.index} and ${b.index} overlap: ${JSON.stringify([a.box, b.box])}`);
    for (const line of m.lines) assert.ok(!overlaps(a.box, line), `${label}: badge ${a.index} covers the answer: ${JSON.stringify([a.box, line])}`);
    assert.ok(a.box.left >= 0 && a.box.right <= m.width, `${label}: badge ${a.index} inside the window`);
    assert.ok(!overlaps(a.box, m.panel), `${label}: the summary covers badge ${a.index}: ${JSON.stringify([a.box, m.panel])}`);
    // On the side where the sentences end: right of the answer, or left of it right to left.
    if (rtl) assert.ok(a.box.right <= Math.min(...m.lines.map((l) => l.left)), `${label}: badge ${a.index} left of the RTL answer`);
    // Text 4.5:1 on its fill; the fill or the border 3:1 on the page (WCAG 1.4.3, 1.4.11).
    assert.ok(contrast(a.color, a.fill) >= 4.5, `${label}: badge ${a.index} text ${a.color} on ${a.fill}`);
    assert.ok(Math.max(contrast(a.fill, m.page), contrast(a.border, m.page)) >= 3, `${label}: badge ${a.index} on the page ${m.page}`);
  }
  if (width === 1280) assert.ok(m.badges.every((b) => !b.compact), `${label}: full badges where there is room`);
  if (m.card) {
    for (const b of m.badges) if (b.index !== m.card.index) assert.ok(!overlaps(m.card.box, b.box), `${label}: the card covers badge ${b.index}`);
  }
}

/**
 * Unfolds the summary where a narrow window folded it to its chip (issue 36 item 6.1), as a
 * reader does by pressing the chip; nothing where it has a margin of its own.
 */
function unfold(page) {
  return page.evaluate(() => {
    const panel = document.querySelector('citelens-overlay').shadowRoot.querySelector('.panel');
    if (panel.classList.contains('collapsed')) panel.querySelector('.chip').click();
    return !panel.classList.contains('collapsed');
  });
}

/** The element that has focus, looked for inside the overlay's shadow root. */
function focused(page) {
  return page.evaluate(() => {
    const host = document.querySelector('citelens-overlay');
    if (document.activeElement !== host) return { inOverlay: false, tag: document.activeElement?.tagName ?? null };
    const el = host.shadowRoot.activeElement;
    return {
      inOverlay: true,
      tag: el?.tagName ?? null,
      badge: el?.classList.contains('badge') ? Number(el.dataset.index) : null,
      card: el?.classList.contains('card') ?? false,
      attention: el?.closest('.attention') ? Number(el.dataset.index) : null,
      label: el?.getAttribute('aria-label') ?? null,
      expanded: el?.getAttribute('aria-expanded') ?? null,
    };
  });
}

/**
 * The keyboard walk, the same in both browsers: Tab from the top of the page reaches every
 * badge in sentence order; Enter on one opens its card with focus in it; Esc closes it and
 * gives focus back; the summary's links open their sentence's card, and Esc comes back.
 */
async function keyboardWalk(page, { press, shot, setSize, label }) {
  const badges = (await measure(page)).badges.map((b) => b.index).sort((a, b) => a - b);
  await page.evaluate(() => document.activeElement?.blur());
  const order = [];
  for (let i = 0; i < 80 && order.length < badges.length; i++) {
    await press('Tab');
    const f = await focused(page);
    if (f.inOverlay && f.badge !== null) {
      assert.match(f.label, BADGE_LABEL);
      assert.equal(f.tag, 'BUTTON');
      order.push(f.badge);
    }
  }
  assert.deepEqual(order, badges, `${label}: Tab reaches every badge in sentence order`);

  // Enter on a sentence that needs attention: its card, with focus in it, and no badge under it.
  const attention = await page.evaluate(() =>
    [...document.querySelector('citelens-overlay').shadowRoot.querySelectorAll('.attention a')].map((a) => Number(a.dataset.index)),
  );
  assert.ok(attention.length >= 1, `${label}: the summary lists what needs attention`);
  const target = attention[0];
  await page.evaluate((i) => document.querySelector('citelens-overlay').shadowRoot.querySelector(`.badge[data-index="${i}"]`).focus(), target);
  await press('Enter');
  let f = await focused(page);
  assert.ok(f.card, `${label}: Enter puts focus in the card (${JSON.stringify(f)})`);
  const m = await settled(page);
  assert.equal(m.card?.index, target, 'the card of that sentence');
  assertLayout(m, { rtl: false, width: 0, label: `${label} with the card open` });
  await shot('card');
  await press('Tab');
  f = await focused(page);
  assert.equal(f.tag, 'BUTTON', `${label}: Tab goes on inside the card (its close button)`);
  await press('Escape');
  f = await focused(page);
  assert.equal(f.badge, target, `${label}: Esc gives focus back to the badge`);
  assert.equal(f.expanded, 'false');
  assert.equal((await measure(page)).card, null, `${label}: Esc closed the card`);

  // A short window: the last sentence that needs attention is out of view; its link scrolls to
  // it and opens its card.
  await setSize(500);
  assert.ok(await unfold(page), `${label}: the summary unfolds`);
  const last = attention[attention.length - 1];
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.evaluate((i) => document.querySelector('citelens-overlay').shadowRoot.querySelector(`.attention a[data-index="${i}"]`).focus(), last);
  await press('Enter');
  f = await focused(page);
  assert.ok(f.card, `${label}: the link puts focus in the card`);
  const after = await settled(page);
  assert.equal(after.card?.index, last);
  const badge = after.badges.find((b) => b.index === last);
  assert.ok(badge && badge.box.top >= 0 && badge.box.bottom <= 500, `${label}: the sentence was scrolled into view`);
  await shot('from-summary');
  await press('Escape');
  f = await focused(page);
  assert.equal(f.attention, last, `${label}: Esc gives focus back to the summary's link`);
  await setSize(900);
}

test('Chromium: layout at 1280 and 800 px, the accessibility tree, the keyboard and the summary links', async () => {
  const browser = await launchChromium();
  try {
    await browser.settings({ companion: companion.base, token: companion.token });
    for (const { name, fixture, rtl } of PAGES) {
      const page = await browser.context.newPage();
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(`${sites.engines}/${fixture}`);
      const clicked = Date.now();
      await browser.click(page);
      const { last } = await waitForResults(page, clicked);
      console.log(`# overlay-a11y chromium ${name}: click → summary ${last} ms`);
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 900 });
        const m = await settled(page);
        assertLayout(m, { rtl, width, label: `chromium ${name} ${width}` });
        console.log(`# chromium ${name} ${width} px: ${m.badges.length} badges${m.badges[0].compact ? ' (compact)' : ''}, ${m.lines.length} line boxes, no overlap`);
        await page.screenshot({ path: path.join(ARTIFACTS, `chromium-a11y-${name}-${width}.png`) });
      }
      if (rtl) {
        await page.close();
        continue;
      }

      // The accessibility tree as Chromium gives it to screen readers.
      await unfold(page);
      const cdp = await browser.context.newCDPSession(page);
      const { nodes } = await cdp.send('Accessibility.getFullAXTree');
      const named = (role) => nodes.filter((n) => !n.ignored && n.role?.value === role).map((n) => n.name?.value ?? '');
      const labels = await page.evaluate(() =>
        [...document.querySelector('citelens-overlay').shadowRoot.querySelectorAll('.badge')].map((b) => b.getAttribute('aria-label')),
      );
      const buttons = named('button').filter((n) => n.startsWith('Sentence '));
      assert.deepEqual(buttons, labels, 'every badge is a button named as its aria-label says, in sentence order');
      for (const n of buttons) assert.match(n, BADGE_LABEL);
      assert.ok(named('status').some((n) => n.includes('fully supported')) || nodes.some((n) => n.role?.value === 'status'), 'the summary is a status region');
      const links = named('link').filter((n) => /^Sentence \d+: /.test(n));
      assert.ok(links.length >= 1, 'the summary\'s links are in the tree');
      assert.ok(named('navigation').some((n) => /^Needs your attention \(\d+\)$/.test(n)), named('navigation').join(' | '));
      await cdp.detach();

      await keyboardWalk(page, {
        label: `chromium ${name}`,
        press: (key) => page.keyboard.press(key),
        setSize: (height) => page.setViewportSize({ width: 800, height }),
        shot: async (what) => {
          await page.screenshot({ path: path.join(ARTIFACTS, `chromium-a11y-${name}-${what}-800.png`) });
          // The dialog is in the tree while it is open, named by its heading.
          const { nodes: open } = await (async () => {
            const s = await browser.context.newCDPSession(page);
            try {
              return await s.send('Accessibility.getFullAXTree');
            } finally {
              await s.detach();
            }
          })();
          const dialogs = open.filter((n) => !n.ignored && n.role?.value === 'dialog').map((n) => n.name?.value);
          assert.equal(dialogs.length, 1, JSON.stringify(dialogs));
          assert.match(dialogs[0], /^(Supported|Likely|Partly|Unsupported|Contradicted|Can't read|Not checked|No citation) — sentence \d+$/);
        },
      });
      await page.close();
    }
  } finally {
    await browser.close();
  }
});

test('Firefox ESR: layout at 1280 and 800 px, the keyboard and the summary links', async () => {
  const firefox = await launchFirefox();
  try {
    await (await pasteToken(firefox, companion)).close();

    for (const { name, fixture, rtl } of PAGES) {
      const page = await firefox.browser.newPage();
      await page.setViewport({ width: 1280, height: 900 });
      await page.goto(`${sites.engines}/${fixture}`);
      const clicked = Date.now();
      await firefox.click(page);
      const { last } = await waitForResults(page, clicked);
      console.log(`# overlay-a11y firefox ${name}: click → summary ${last} ms`);
      for (const width of WIDTHS) {
        await page.setViewport({ width, height: 900 });
        const m = await settled(page);
        assertLayout(m, { rtl, width, label: `firefox ${name} ${width}` });
        console.log(`# firefox ${name} ${width} px: ${m.badges.length} badges${m.badges[0].compact ? ' (compact)' : ''}, ${m.lines.length} line boxes, no overlap`);
        await page.screenshot({ path: path.join(ARTIFACTS, `firefox-a11y-${name}-${width}.png`) });
      }
      if (!rtl) {
        await keyboardWalk(page, {
          label: `firefox ${name}`,
          press: (key) => page.keyboard.press(key),
          setSize: (height) => page.setViewport({ width: 800, height }),
          shot: (what) => page.screenshot({ path: path.join(ARTIFACTS, `firefox-a11y-${name}-${what}-800.png`) }),
        });
      }
      await page.close();
    }
  } finally {
    await firefox.close();
  }
});
