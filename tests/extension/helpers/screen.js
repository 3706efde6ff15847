// What the reader sees of the overlay, as layout boxes (getBoundingClientRect), not pixels
// (issue 60 item 3): read in the page by `readScreen` (Playwright and Puppeteer pages alike), and
// judged in the test by `screenProblems`, which lists in words each thing a reader would see
// wrong: a badge outside the window, beside no visible sentence or not beside its own, over the
// answer's words or another badge, a cut word in a badge or in a "Needs your attention" row, a
// row without its sentence, the summary or a card over the answer's words, a card over the
// summary, counts that do not add up.

/**
 * Runs in the page. `sentences`: the texts of the statements by index (the stand-in companion's
 * cut, helpers/stub-companion.js sentencesOf). Opens each visible badge's card by focus, one
 * after the other, and measures it.
 * @param {{answer: string, sentences: string[]}} arg
 */
export function readScreen({ answer: answerSelector, sentences }) {
  const root = document.querySelector('citelens-overlay').shadowRoot;
  const host = document.querySelector('citelens-overlay');
  const box = (r) => ({ left: r.left, top: r.top, right: r.right, bottom: r.bottom });
  const width = document.documentElement.clientWidth;
  const height = innerHeight;
  const answer = document.querySelector(answerSelector);
  const pageAt = (x, y) => document.elementsFromPoint(x, y).find((el) => el !== host) || null;

  // The answer's text as line boxes, each marked shown when the page shows it there (not folded
  // away, not under something else): what the page has at its middle is of the text's own block.
  const blockOf = (node) => {
    let el = node.parentElement;
    while (el.parentElement && getComputedStyle(el).display.startsWith('inline')) el = el.parentElement;
    return el;
  };
  const lines = [];
  const walker = document.createTreeWalker(answer, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.data.trim() || !node.parentElement.checkVisibility()) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const r of range.getClientRects()) {
      if (r.width < 1 || r.bottom <= 0 || r.top >= height || r.right <= 0 || r.left >= width) continue;
      // At its start, middle and end: a line partly under something else still shows.
      const shown = [r.left + 6, r.left + r.width / 2, r.right - 6].some((x) => {
        const hit = pageAt(Math.min(Math.max(x, 0), width - 1), r.top + r.height / 2);
        return !!hit && blockOf(node).contains(hit);
      });
      lines.push({ box: box(r), shown, text: node.data.trim().slice(0, 40) });
    }
  }

  // The last line of each sentence, found by its last words in the page's text.
  const squash = (s) => s.replace(/\s+/g, ' ').trim();
  const lastLine = (sentence) => {
    const tail = squash(sentence).slice(-14);
    const walk = document.createTreeWalker(answer, NodeFilter.SHOW_TEXT);
    for (let node = walk.nextNode(); node; node = walk.nextNode()) {
      const at = squash(node.data).lastIndexOf(tail);
      if (at < 0) continue;
      const raw = node.data.indexOf(tail.slice(-6), Math.max(0, at - 4));
      if (raw < 0) continue;
      const range = document.createRange();
      range.setStart(node, raw);
      range.setEnd(node, raw + 6);
      const rects = [...range.getClientRects()].filter((r) => r.width > 0);
      return rects.length ? box(rects[rects.length - 1]) : null;
    }
    return null;
  };

  // A word cut at an edge: the box's content wider than the box (an ellipsis, a clip). Heights are
  // not compared: glyphs reach past a line box of line-height 1 by a pixel in Firefox.
  const cut = (el) => el.getClientRects().length > 0 && el.scrollWidth > el.clientWidth + 1;
  const badges = [...root.querySelectorAll('.badge')].map((b) => ({
    index: Number(b.dataset.index),
    kind: b.dataset.kind,
    hidden: b.hidden,
    box: box(b.getBoundingClientRect()),
    words: b.innerText.replace(/\s+/g, ' ').trim(),
    cut: [b, ...b.querySelectorAll('span')].filter(cut).map((el) => el.className || 'badge'),
    sentenceLine: lastLine(sentences[Number(b.dataset.index)] || ''),
  }));

  const panel = root.querySelector('.panel');
  const chip = panel.querySelector('.chip');
  const panelBox = box(panel.getBoundingClientRect());
  const panelFolded = panel.classList.contains('collapsed');

  // Each visible badge's card, opened as Tab opens it.
  const cards = [];
  for (const b of root.querySelectorAll('.badge')) {
    if (b.hidden) continue;
    b.focus();
    const card = root.querySelector('.card');
    cards.push({ index: Number(b.dataset.index), box: card.hidden ? null : box(card.getBoundingClientRect()) });
  }
  root.activeElement?.blur();

  // The summary's rows, unfolded as a reader would (the chip, then the grouped rows).
  if (panelFolded && !chip.hidden) chip.click();
  for (const group of panel.querySelectorAll('.attention button.group[aria-expanded="false"]')) group.click();
  const rows = [...panel.querySelectorAll('.attention a')].map((a) => ({
    index: Number(a.dataset.index),
    what: a.querySelector('.what')?.textContent ?? '',
    text: a.querySelector('.text')?.textContent ?? '',
    cut: [...a.querySelectorAll('.what, .text')].filter(cut).map((el) => el.className),
  }));
  if (panelFolded && !chip.hidden) chip.click();

  return {
    width,
    height,
    answer: box(answer.getBoundingClientRect()),
    lines,
    badges,
    panel: panelBox,
    panelFolded,
    cards,
    rows,
    counts: root.querySelector('.bar .counts')?.textContent ?? '',
  };
}

const overlaps = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
const besideRow = (a, b) => a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;

/**
 * Everything a reader would see wrong on this screen, in words; [] when nothing.
 * @param {ReturnType<typeof readScreen>} m @param {string[]} sentences
 */
export function screenProblems(m, sentences) {
  const problems = [];
  const shownLines = m.lines.filter((l) => l.shown);
  const visible = m.badges.filter((b) => !b.hidden);
  for (const b of visible) {
    const at = `badge ${b.index + 1} "${b.words}" ${JSON.stringify(b.box)}`;
    if (b.box.left < 0 || b.box.top < 0 || b.box.right > m.width || b.box.bottom > m.height) problems.push(`${at} is outside the ${m.width}×${m.height} window`);
    if (!shownLines.some((l) => besideRow(b.box, l.box))) problems.push(`${at} stands beside no visible sentence`);
    if (b.sentenceLine && !besideRow(b.box, b.sentenceLine)) problems.push(`${at} is not beside the last line of its sentence ${JSON.stringify(b.sentenceLine)}`);
    if (b.box.top < m.answer.top - 4 || b.box.bottom > m.answer.bottom + 4) problems.push(`${at} is outside the answer's box ${JSON.stringify(m.answer)}`);
    if (b.cut.length) problems.push(`${at} cuts its words (${b.cut.join(', ')})`);
    const over = m.lines.find((l) => overlaps(b.box, l.box));
    if (over) problems.push(`${at} covers the answer's words "${over.text}"`);
    for (const other of visible) if (other.index > b.index && overlaps(b.box, other.box)) problems.push(`${at} overlaps badge ${other.index + 1}`);
  }
  if (!m.panelFolded) {
    const over = shownLines.find((l) => overlaps(m.panel, l.box));
    if (over) problems.push(`the summary panel ${JSON.stringify(m.panel)} covers the answer's words "${over.text}"`);
  }
  for (const c of m.cards) {
    if (!c.box) {
      problems.push(`focus on badge ${c.index + 1} opened no card`);
      continue;
    }
    if (overlaps(c.box, m.panel)) problems.push(`the card of sentence ${c.index + 1} ${JSON.stringify(c.box)} covers the summary panel ${JSON.stringify(m.panel)}`);
    const over = shownLines.find((l) => overlaps(c.box, l.box));
    if (over) problems.push(`the card of sentence ${c.index + 1} covers the answer's words "${over.text}"`);
    if (c.box.left < 0 || c.box.top < 0 || c.box.right > m.width || c.box.bottom > m.height) problems.push(`the card of sentence ${c.index + 1} leaves the window`);
  }
  for (const row of m.rows) {
    if (row.cut.length) problems.push(`the attention row of sentence ${row.index + 1} cuts its words (${row.cut.join(', ')})`);
    const sentence = sentences[row.index];
    if (sentence && row.text.replace(/\s+/g, ' ').trim() !== sentence.replace(/\s+/g, ' ').trim()) {
      problems.push(`the attention row of sentence ${row.index + 1} shows "${row.text}", not its sentence "${sentence}"`);
    }
  }
  const problem = countsProblem(m.counts, m.badges.length);
  if (problem) problems.push(problem);
  return problems;
}

/**
 * Whether the summary's counts add up (issue 60 item 2): "3 of 8 sentences fully supported ·
 * 1 partly · 2 not supported, 1 of them contradicted · …" (or the French "Phrases entièrement
 * soutenues : 3 sur 8 · …"): the first part names the fully supported and the total, each other
 * part starts with its count, and those sum to the total, which is the number of sentences
 * shown. A figure after the first in a part ("1 of them contradicted") is part of that count.
 * '' when they add up.
 * @param {string} counts  the summary's counts line @param {number} sentences
 */
export function countsProblem(counts, sentences) {
  const [first, ...rest] = counts.split(' · ');
  const [supported, total] = (first.match(/\d+/g) || []).map(Number);
  if (total === undefined) return `the summary's counts "${counts}" name no total`;
  const sum = supported + rest.reduce((n, p) => n + Number(/^\s*(\d+)/.exec(p)?.[1] ?? NaN), 0);
  if (total !== sentences) return `the summary's counts "${counts}" are of ${total} sentences, ${sentences} are shown`;
  if (sum !== sentences) return `the summary's counts "${counts}" add up to ${sum}, not ${sentences}`;
  return '';
}

/** Runs in the page: opens the card of sentence `index` as Tab does (focus on its badge). */
export function openCard(index) {
  document.querySelector('citelens-overlay').shadowRoot.querySelector(`.badge[data-index="${index}"]`)?.focus();
}
