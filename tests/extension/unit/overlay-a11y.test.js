// The overlay by keyboard (issue 15.4) and the summary's list of sentences that need the
// reader's attention (issue 15.5), in jsdom. The browser tests (e2e/overlay-a11y.test.js) press
// the real keys and read the accessibility tree.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadPage } from '../helpers/dom.js';

const HTML = '<!doctype html><body><p><span id="s0">One.</span> <span id="s1">Two.</span> <span id="s2">Three.</span> <span id="s3">Four.</span></p></body>';

function setUp() {
  const page = loadPage(HTML, { url: 'https://example.com/' });
  const { window, document } = page;
  // Test-only stand-ins: jsdom has no layout (nothing to observe, no rectangles, no scrolling).
  window.ResizeObserver = class { observe() {} disconnect() {} };
  window.Range.prototype.getClientRects ??= () => [];
  const scrolled = [];
  window.Element.prototype.scrollIntoView = function (options) {
    scrolled.push({ id: this.id, options });
  };
  const overlay = new page.CiteLens.overlay.Overlay(document, { onExport() {}, onClose() {}, onOptions() {} });
  const root = overlay.host.shadowRoot;
  const show = (index, kind, quotes = 1) => {
    const range = document.createRange();
    range.selectNodeContents(document.getElementById(`s${index}`));
    const url = `https://x.org/${index}`;
    overlay.show(index, [range], {
      index, judgment: kind === 'contradicted' ? 'no_support' : kind, kind, text: `Sentence text ${index}.`, unsupported: [],
      supportingSources: kind === 'no_citation' ? [] : [index + 1],
      sources: kind === 'no_citation' ? [] : [{ n: index + 1, url, title: '', judgment: kind, irrelevant: false, reason: '',
        quotes: Array.from({ length: quotes }, (_, q) => ({ text: `Quote ${q}.`, href: `${url}#:~:text=Quote%20${q}.` })) }],
    });
  };
  const key = (key, target = document, extra = {}) => target.dispatchEvent(new window.KeyboardEvent('keydown', { key, bubbles: true, composed: true, ...extra }));
  return { window, document, overlay, root, show, key, scrolled, card: root.querySelector('.card'), badge: (i) => root.querySelector(`.badge[data-index="${i}"]`) };
}

test('badges come in sentence order in the tab order, before the card and the summary', () => {
  const { overlay, root, show } = setUp();
  for (const [i, kind] of [[2, 'no_support'], [0, 'complete_support'], [3, 'contradicted'], [1, 'partial_support']]) show(i, kind);
  overlay.bar.done({ counts: { complete_support: 1, partial_support: 1, no_support: 2 }, contradicted: { no_support: 1 } });
  const focusable = [...root.querySelectorAll('button, a[href]')].filter((el) => !el.closest('[hidden]'));
  assert.deepEqual(focusable.slice(0, 4).map((b) => b.getAttribute('aria-label')), [
    'Sentence 1: fully supported by source 1 — show evidence',
    'Sentence 2: partly supported by source 2 — show evidence',
    'Sentence 3: not supported by source 3 — show details',
    'Sentence 4: contradicted by source 4 — show evidence',
  ]);
  assert.ok(focusable.slice(0, 4).every((b) => b.tagName === 'BUTTON' && b.getAttribute('aria-haspopup') === 'dialog'));
  assert.ok(root.querySelector('.badge').compareDocumentPosition(root.querySelector('.card')) & 4, 'the card after the badges');
  assert.ok(root.querySelector('.card').compareDocumentPosition(root.querySelector('.panel')) & 4, 'the summary last');
  overlay.destroy();
});

test('Enter opens the card with focus in it, Esc closes it and gives focus back to the badge', async () => {
  const { overlay, root, show, key, card, badge } = setUp();
  show(0, 'complete_support');
  show(1, 'no_support');
  badge(1).focus();
  assert.equal(card.hidden, false, 'focus shows the card');
  // Enter on a button is a click without a pointer (detail 0): what element.click() sends.
  badge(1).click();
  assert.equal(card.hidden, false);
  assert.equal(root.activeElement, card, 'focus moves into the card');
  assert.equal(card.getAttribute('role'), 'dialog');
  assert.equal(root.getElementById(card.getAttribute('aria-labelledby')).textContent, '✗Unsupported — sentence 2');
  assert.equal(badge(1).getAttribute('aria-expanded'), 'true');
  assert.equal(badge(0).getAttribute('aria-expanded'), 'false');
  // The mouse passing over another sentence does not swap the card the keyboard opened.
  overlay.hover(0);
  await new Promise((resolve) => setTimeout(resolve, 150));
  assert.equal(overlay.card.index, 1);
  key('Escape');
  assert.equal(card.hidden, true);
  assert.equal(root.activeElement, badge(1), 'focus is back where it was');
  assert.equal(badge(1).getAttribute('aria-expanded'), 'false');
  assert.equal(card.hidden, true, 'and the focus handed back does not reopen it');
  overlay.destroy();
});

test('Tab past the card\'s last link goes on to the next badge; Shift+Tab from the card back to its badge', () => {
  const { overlay, root, show, key, card, badge } = setUp();
  show(0, 'complete_support', 2);
  show(1, 'no_support');
  badge(0).focus();
  badge(0).click();
  const links = [...card.querySelectorAll('button, a[href]')];
  assert.deepEqual(links.map((l) => l.textContent), ['×', 'Open source at this quote ↗', 'Open source at this quote ↗']);
  links[2].focus();
  key('Tab', links[2]);
  assert.equal(root.activeElement, badge(1));
  assert.equal(overlay.card.index, 1, 'the next badge shows its own card');
  badge(1).click();
  assert.equal(root.activeElement, card);
  key('Tab', card, { shiftKey: true });
  assert.equal(root.activeElement, badge(1));
  assert.equal(card.hidden, true);
  overlay.destroy();
});

test('the summary lists the sentences that need attention; each link opens its card, and Esc comes back to it', () => {
  const { overlay, root, show, key, card, scrolled } = setUp();
  show(0, 'complete_support');
  show(1, 'no_support');
  show(2, 'no_citation');
  show(3, 'contradicted');
  overlay.bar.done({ counts: { complete_support: 1, no_support: 2, no_citation: 1 }, contradicted: { no_support: 1 } });
  const list = root.querySelector('.attention');
  assert.equal(list.hidden, false);
  assert.equal(list.tagName, 'NAV');
  assert.equal(root.getElementById(list.getAttribute('aria-labelledby')).textContent, 'Needs your attention (2)');
  assert.equal(list.closest('[role="status"]'), null, 'outside the live region: read when visited, not announced');
  const links = [...list.querySelectorAll('a[href]')];
  assert.deepEqual(links.map((a) => a.getAttribute('aria-label')), [
    'Sentence 2: not supported by source 2: Sentence text 1.',
    'Sentence 4: contradicted by source 4: Sentence text 3.',
  ]);
  // What is read is what is shown (WCAG 2.5.3), the icon aside.
  assert.deepEqual(links.map((a) => a.textContent), ['✗Sentence 2: not supported by source 2:Sentence text 1.', '⚠Sentence 4: contradicted by source 4:Sentence text 3.']);
  assert.equal(links[0].querySelector('.text').dir, 'auto', 'the sentence keeps its own direction');
  assert.ok(links.every((a) => a.querySelector('.icon').getAttribute('aria-hidden') === 'true'));

  links[1].focus();
  links[1].click();
  assert.deepEqual(scrolled.map((s) => s.id), ['s3'], 'scrolled to the sentence');
  assert.equal(scrolled[0].options.block, 'center');
  assert.equal(card.hidden, false);
  assert.equal(overlay.card.index, 3);
  assert.equal(root.activeElement, card);
  assert.equal(overlay.host.ownerDocument.location.hash, '', 'the page\'s URL is left alone');
  key('Escape');
  assert.equal(card.hidden, true);
  assert.equal(root.activeElement, links[1], 'focus back on the link it came from');
  overlay.destroy();
});

test('no list when nothing needs attention, and none while checking or on an error', () => {
  const { overlay, root, show } = setUp();
  show(0, 'complete_support');
  show(2, 'no_citation');
  overlay.bar.done({ counts: { complete_support: 1, no_citation: 1 } });
  assert.equal(root.querySelector('.attention').hidden, true);
  show(1, 'inaccessible');
  overlay.bar.done({ counts: { complete_support: 1, inaccessible: 1, no_citation: 1 } });
  assert.equal(root.querySelectorAll('.attention a').length, 1);
  overlay.bar.working('Checking…');
  assert.equal(root.querySelector('.attention').hidden, true);
  overlay.bar.error('The companion stopped.');
  assert.equal(root.querySelector('.attention').hidden, true);
  assert.ok(root.querySelector('.panel').classList.contains('error'));
  overlay.destroy();
});

test('sentences left unchecked for the same reason are one row with a count, a button that lists them (issue 36 item 6.3)', () => {
  const { window, document, overlay, root } = setUp();
  const reason = 'the answer is in Japanese; CiteLens reads English and French';
  const p = document.createElement('p');
  document.body.appendChild(p);
  const view = (index, kind, why = '') => ({
    index, judgment: kind, kind, text: `Sentence text ${index}.`, unsupported: [], supportingSources: [1], markers: ['nikkei'],
    sources: [{ n: 1, marker: 'nikkei', url: 'https://x.jp/a', title: '', judgment: kind, irrelevant: false, reason: why, quotes: [] }],
  });
  for (let i = 0; i < 29; i++) {
    const span = document.createElement('span');
    span.id = `j${i}`;
    span.textContent = `文 ${i}。`;
    p.appendChild(span);
    const range = document.createRange();
    range.selectNodeContents(span);
    overlay.show(i, [range], i === 3 ? view(i, 'no_support') : i === 28 ? view(i, 'not_checked', 'the page is in Korean; CiteLens reads English and French') : view(i, 'not_checked', reason));
  }
  overlay.bar.done({ counts: { no_support: 1, not_checked: 28 } });
  const list = root.querySelector('.attention');
  assert.equal(root.getElementById(list.getAttribute('aria-labelledby')).textContent, 'Needs your attention (29)');
  const rows = [...list.querySelector('ul').children];
  assert.equal(rows.length, 3, 'one row for the 27, and the two that stand alone');
  // In the answer's order of each row's first sentence.
  const group = rows[0].querySelector('button.group');
  assert.ok(group, 'the 27 are a button');
  assert.equal(group.textContent.replace(/^–/, ''), `27 sentences not checked: ${reason}`);
  assert.equal(group.querySelector('.icon').getAttribute('aria-hidden'), 'true');
  assert.equal(group.getAttribute('aria-expanded'), 'false');
  const members = root.getElementById(group.getAttribute('aria-controls'));
  assert.equal(members.hidden, true, 'folded at first');
  assert.equal(rows[1].querySelector('a').dataset.index, '3');
  assert.equal(rows[2].querySelector('a').dataset.index, '28', 'a reason of its own is a row of its own');
  // Unfolded: each sentence, a link to its sentence and card as before.
  group.click();
  assert.equal(group.getAttribute('aria-expanded'), 'true');
  assert.equal(members.hidden, false);
  const links = [...members.querySelectorAll('a[href]')];
  assert.equal(links.length, 27);
  assert.equal(links[0].getAttribute('aria-label'), 'Sentence 1: not checked against source nikkei (language): Sentence text 0.');
  links[5].click();
  assert.equal(overlay.card.index, 6);
  assert.equal(root.activeElement, overlay.card.el);
  // The keyboard: Enter on the button folds it again (a button's click).
  group.dispatchEvent(new window.MouseEvent('click', { bubbles: true }));
  assert.equal(group.getAttribute('aria-expanded'), 'false');
  assert.equal(members.hidden, true);
  overlay.destroy();
});
