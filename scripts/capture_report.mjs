#!/usr/bin/env node
/* global console, process */
// What the extension's adapters capture from every saved real engine page
// (../shared/data/ai-pages/, or CITELENS_AI_PAGES): the adapter and its version, sentences,
// citations, the URLs they resolve to, and what was left out (other turns, source cards, agent
// steps and tool output, citation chips whose source is not in the page). Runs the content
// scripts in jsdom exactly as the unit tests do, so a new saved page is checked in a minute:
//
//   node scripts/capture_report.mjs              # every page
//   node scripts/capture_report.mjs perplexity   # pages whose id contains "perplexity"
//   node scripts/capture_report.mjs --json       # one JSON object per page
import { loadPage } from '../tests/extension/helpers/dom.js';
import { realPages, roughSentences } from '../tests/extension/helpers/real-pages.js';

const args = process.argv.slice(2);
const asJson = args.includes('--json');
const filter = args.find((a) => !a.startsWith('--')) || '';

const squash = (/** @type {string} */ s) => s.replace(/\s+/g, ' ').trim();
const clip = (/** @type {string} */ s, n = 70) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** Outermost elements under `root` matching any of `selectors`. */
function outermost(root, selectors, A) {
  const all = A.queryAll(root, selectors);
  return all.filter((el) => !all.some((other) => other !== el && other.contains(el)));
}

/** @param {import('../tests/extension/helpers/real-pages.js').RealPage} page */
function report(page) {
  const { window, document, CiteLens } = loadPage(page.html(), { url: page.url });
  const A = CiteLens.adapters;
  A.prepareFor(document, page.url);
  const adapter = A.detect(document, page.url) || A.registry.get('generic');
  const out = { page: page.id, url: page.url, adapter: `${adapter.meta.id} ${adapter.meta.lastUpdated}` };
  let result;
  try {
    result = A.captureAnswer(document, { url: page.url, selection: null });
  } catch (error) {
    if (!(error instanceof window.Error) || !error.code) throw error;
    return { ...out, error: `${error.code}: ${error.message}` };
  }
  const { capture, container } = result;
  const urls = [...new Set(capture.citations.map((c) => c.url))];
  const sel = adapter.selectors;
  const turns = outermost(document, sel.turns || [], A).filter((t) => !t.contains(container) && !container.contains(t));
  const readTurns = outermost(document, sel.turns || [], A).length - turns.length;
  const skipped = (sel.skip || []).map((s) => {
    const found = outermost(container, [s], A);
    return { selector: s, count: found.length, chars: found.reduce((n, el) => n + squash(el.textContent || '').length, 0) };
  });
  const unresolved = outermost(container, sel.citations || [], A).filter((el) => {
    const raw = (adapter.citationUrls || A.defaultCitationUrls)(el);
    return !raw.some((u) => CiteLens.urls.normalizeUrl(u, page.url, adapter.ownRedirectors));
  });
  return {
    ...out,
    sentences: roughSentences(capture.text).length,
    chars: capture.text.length,
    query: clip(capture.query),
    citations: capture.citations.length,
    markers: [...new Set(capture.citations.map((c) => c.marker))].slice(0, 8),
    urls,
    hidden_sources: capture.hidden_sources,
    left_out: {
      turns_read: readTurns,
      other_turns: turns.map((t) => clip(squash(t.textContent || ''), 60)),
      skipped: skipped.filter((s) => s.count),
      citations_without_source: unresolved.map((el) => clip(squash(el.getAttribute('aria-label') || el.textContent || '?'), 50)),
      page_chars_outside_answer: squash(document.body.textContent || '').length - squash(container.textContent || '').length,
    },
    opening: clip(squash(capture.text), 160),
  };
}

const pages = realPages().filter((p) => p.id.includes(filter));
for (const page of pages) {
  const r = report(page);
  if (asJson) {
    console.log(JSON.stringify(r));
    continue;
  }
  console.log(`\n== ${r.page}  (${r.adapter})\n   ${r.url}`);
  if (r.error) {
    console.log(`   NOT CAPTURED — ${r.error}`);
    continue;
  }
  console.log(`   ${r.sentences} sentences, ${r.chars} characters; ${r.citations} citations → ${r.urls.length} distinct URLs`);
  console.log(`   question: ${r.query || '(none found)'}`);
  console.log(`   opens: ${r.opening}`);
  console.log(`   markers: ${r.markers.map((m) => JSON.stringify(m)).join(', ')}`);
  for (const url of r.urls) console.log(`     ${url}`);
  const l = r.left_out;
  console.log(`   left out: ${l.other_turns.length} other turn(s) (read ${l.turns_read}); ${l.page_chars_outside_answer} page characters outside the answer`);
  for (const t of l.other_turns) console.log(`     turn: ${t}`);
  for (const s of l.skipped) console.log(`     skipped ${s.selector}: ${s.count} element(s), ${s.chars} characters`);
  if (l.citations_without_source.length) {
    console.log(`     ${l.citations_without_source.length} citation chip(s) with no source in the page: ${l.citations_without_source.slice(0, 4).join(' | ')}`);
  }
  if (r.hidden_sources.chips) console.log(`     "+N" chips hide ${r.hidden_sources.chips} sources, ${r.hidden_sources.unresolved} not in the page`);
}
console.log(`\n${pages.length} page(s) from ${pages.length ? pages[0].file.replace(/\/[^/]+\/[^/]+$/, '') : '?'}`);
