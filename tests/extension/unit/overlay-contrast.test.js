// Colours (issue 15.4): WCAG 2.x contrast ratios computed from the overlay's own colour data
// (styles.js PALETTE and the rules of its stylesheet), on light and dark pages. Text needs 4.5:1
// (AA, 1.4.3); a badge's outline or fill, and focus rings, 3:1 against what is around them
// (1.4.11). Colour is never the only signal: each verdict also has its own icon and word.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadPage } from '../helpers/dom.js';

const { CiteLens } = loadPage('<!doctype html><p>x</p>', { url: 'https://example.com/' });
const O = CiteLens.overlay;

// Page backgrounds the overlay sits on: light, and the dark themes of the engines.
const PAGES = { white: '#ffffff', 'light grey': '#f8f9fa', 'Google dark': '#202124', 'Perplexity dark': '#191a1a', 'ChatGPT dark': '#212121', black: '#000000' };

/** @param {string} hex */
function rgb(hex) {
  const h = hex.replace('#', '');
  const full = h.length === 3 ? [...h].map((c) => c + c).join('') : h;
  return [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16));
}
/** WCAG 2.x relative luminance. @param {string} hex */
function luminance(hex) {
  const [r, g, b] = rgb(hex).map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
/** @param {string} a @param {string} b */
function contrast(a, b) {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}
/** `fg` at `alpha` over `bg`, as the eye gets it. */
function blend(fg, bg, alpha) {
  const [f, b] = [rgb(fg), rgb(bg)];
  return '#' + f.map((v, i) => Math.round(v * alpha + b[i] * (1 - alpha)).toString(16).padStart(2, '0')).join('');
}

test('the contrast formula is WCAG\'s', () => {
  assert.equal(contrast('#000000', '#ffffff').toFixed(1), '21.0');
  assert.equal(contrast('#777777', '#ffffff').toFixed(2), '4.48'); // the classic just-fails grey
  assert.equal(blend('#000000', '#ffffff', 0.5), '#808080');
});

test('badge text on its own fill meets AA, the dimmer source number too', () => {
  for (const [kind, c] of Object.entries(O.PALETTE)) {
    assert.ok(contrast(c.text, c.background) >= 4.5, `${kind}: ${contrast(c.text, c.background).toFixed(2)}`);
    // .badge .num { opacity: 0.8 }
    assert.match(O.STYLES, /\.badge \.num \{[^}]*opacity: 0\.8;/);
    const num = blend(c.text, c.background, 0.8);
    assert.ok(contrast(num, c.background) >= 4.5, `${kind} number: ${contrast(num, c.background).toFixed(2)}`);
    // The card's heading uses the kind's text colour on the white card.
    assert.ok(contrast(c.text, '#ffffff') >= 4.5, `${kind} heading`);
  }
});

test('every badge stands out from light and dark pages by its border or its fill', () => {
  for (const [kind, c] of Object.entries(O.PALETTE)) {
    for (const [name, page] of Object.entries(PAGES)) {
      const best = Math.max(contrast(c.border, page), contrast(c.background, page));
      assert.ok(best >= 3, `${kind} on a ${name} page: ${best.toFixed(2)}`);
    }
  }
});

test('the verdicts differ by more than colour: icon, word and, for two, the border style', () => {
  const kinds = Object.keys(O.PALETTE);
  assert.deepEqual(kinds.sort(), Object.keys(O.KINDS).sort());
  assert.equal(new Set(kinds.map((k) => O.KINDS[k].icon)).size, kinds.length, 'one icon per verdict');
  assert.equal(new Set(kinds.map((k) => O.KINDS[k].word)).size, kinds.length, 'one word per verdict');
  assert.equal(O.PALETTE.inaccessible.style, 'dashed');
  assert.equal(O.PALETTE.no_citation.style, 'dotted');
});

/** The stylesheet's rules: selector → {property: value}. */
function rules() {
  const out = [];
  for (const m of O.STYLES.matchAll(/([^{}]+)\{([^{}]*)\}/g)) {
    const decls = Object.fromEntries([...m[2].matchAll(/([a-z-]+)\s*:\s*([^;]+)/g)].map((d) => [d[1], d[2].trim()]));
    out.push({ selector: m[1].trim(), decls });
  }
  return out;
}

test('every text colour in the card and the summary meets AA on the background it sits on', () => {
  const all = rules();
  const get = (sel) => all.find((r) => r.selector === sel)?.decls ?? {};
  const cardBg = get('.card').background;
  const panels = [get('.panel').background, get('.panel.error').background, get('.panel.warning').background];
  assert.deepEqual([cardBg, ...panels], ['#fff', '#0f172a', '#7f1d1d', '#78350f']);
  const checked = [];
  for (const { selector, decls } of all) {
    const color = decls.color;
    if (!color || !color.startsWith('#')) continue;
    if (/^\.k-|:disabled/.test(selector)) continue; // verdict colours above; disabled controls are exempt (1.4.3)
    const own = decls.background && decls.background.startsWith('#') ? [decls.background] : null;
    // .layer's colour is the card's default text; the summary sets its own.
    const on = own ?? (/^\.(card|layer)/.test(selector) ? [cardBg] : /^\.(bar|panel|attention)/.test(selector) ? panels : null);
    assert.ok(on, `no known background for ${selector}`);
    for (const bg of on) {
      assert.ok(contrast(color, bg) >= 4.5, `${selector}: ${color} on ${bg} is ${contrast(color, bg).toFixed(2)}`);
      checked.push(selector);
    }
  }
  // The default text (.layer) on the card and its quote boxes.
  const text = get('.layer').color;
  for (const sel of ['.card blockquote', '.card .refutes blockquote', '.card .found blockquote', '.card .says-otherwise blockquote']) {
    const bg = /background:\s*(#[0-9a-f]+)/.exec(all.find((r) => r.selector === sel).decls.background ?? '')?.[1] ?? get(sel).background;
    assert.ok(contrast(text, bg) >= 4.5, `${sel}`);
  }
  assert.ok(checked.length >= 12, `checked ${checked.length} rules`);
});

test('focus rings stand out on light and dark pages and on the summary', () => {
  const ring = /\.badge:focus-visible \{ outline: 3px solid (#[0-9a-f]+)/.exec(O.STYLES)[1];
  for (const [name, page] of Object.entries(PAGES)) assert.ok(contrast(ring, page) >= 3, `badge ring on ${name}: ${contrast(ring, page).toFixed(2)}`);
  const barRing = /\.bar button:focus-visible \{ outline: 3px solid (#[0-9a-f]+)/.exec(O.STYLES)[1];
  for (const bg of ['#0f172a', '#7f1d1d', '#78350f']) assert.ok(contrast(barRing, bg) >= 3, `summary ring on ${bg}`);
});
