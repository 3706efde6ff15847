/*
 * How each verdict is shown and spoken: icon + word + colour, never colour alone (WCAG 1.4.1),
 * and the underline style differs too, for readers who cannot tell the colours apart.
 *
 * Runs in: content scripts. Data, and the words made from it.
 */
'use strict';
(function (CL) {
  /**
   * kind → what the badge shows. `kind` is the statement's judgment, or 'contradicted' when a
   * cited source says the opposite (that outranks the judgment: it is what a reader must see).
   */
  const KINDS = Object.freeze({
    complete_support: { icon: '✓', word: 'Supported', phrase: 'Fully supported by', action: 'show evidence' },
    partial_support: { icon: '◐', word: 'Partly', phrase: 'Partly supported by', action: 'show evidence' },
    no_support: { icon: '✗', word: 'Unsupported', phrase: 'Not supported by', action: 'show details' },
    contradicted: { icon: '⚠', word: 'Contradicted', phrase: 'Contradicted by', action: 'show evidence' },
    inaccessible: { icon: '⊘', word: "Can't read", phrase: 'Could not read', action: 'show details' },
    no_citation: { icon: '?', word: 'No citation', phrase: 'No citation', action: '' },
  });

  /** The verdicts the summary lists for the reader to look at, most serious first in meaning. */
  const ATTENTION_KINDS = Object.freeze(['contradicted', 'no_support', 'partial_support', 'inaccessible']);

  /** @param {{judgment: string, contradicted?: boolean}} result */
  function kindOf(result) {
    return result.contradicted ? 'contradicted' : result.judgment in KINDS ? result.judgment : 'no_support';
  }

  /** "source 1", "sources 1 and 2", "sources 1, 2 and 4" */
  function sourcesPhrase(/** @type {number[]} */ numbers) {
    if (!numbers.length) return 'its sources';
    if (numbers.length === 1) return `source ${numbers[0]}`;
    return `sources ${numbers.slice(0, -1).join(', ')} and ${numbers[numbers.length - 1]}`;
  }

  /**
   * The badge's accessible name: which sentence, its verdict, and what the badge opens, e.g.
   * "Sentence 3: not supported by source 2 — show details". Support found in a page the sentence
   * does not cite comes after the verdict on its own sources (that is still its verdict):
   * "Sentence 2: not supported by source 2; found in [4] — show evidence".
   * @param {number} index  the sentence's index (0-based; readers count from 1)
   * @param {string} kind @param {number[]} sources
   * @param {{found: {label: string}[]}|null} [elsewhere]
   */
  function badgeLabel(index, kind, sources, elsewhere = null) {
    const k = KINDS[kind];
    const action = elsewhere ? `; ${foundInPhrase(elsewhere)} — show evidence` : k.action ? ` — ${k.action}` : '';
    return `Sentence ${index + 1}: ${verdictPhrase(kind, sources)}${action}`;
  }

  /** "not supported by source 2", "no citation": the verdict as said inside a sentence. @param {string} kind @param {number[]} sources */
  function verdictPhrase(kind, sources) {
    if (kind === 'no_citation') return 'no citation';
    const phrase = KINDS[kind].phrase;
    return `${phrase[0].toLowerCase()}${phrase.slice(1)} ${sourcesPhrase(sources)}`;
  }

  /**
   * "9 of 14 sentences fully supported · 2 partly · 1 inaccessible": every non-zero count.
   * @param {Record<string, number>} counts @param {number} contradicted
   */
  function countsPhrase(counts, contradicted = 0) {
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    const parts = [`${counts.complete_support || 0} of ${total} sentence${total === 1 ? '' : 's'} fully supported`];
    if (counts.partial_support) parts.push(`${counts.partial_support} partly`);
    if (counts.no_support) parts.push(`${counts.no_support} not supported`);
    if (contradicted) parts.push(`${contradicted} contradicted`);
    if (counts.inaccessible) parts.push(`${counts.inaccessible} inaccessible`);
    if (counts.no_citation) parts.push(`${counts.no_citation} without citation`);
    return parts.join(' · ');
  }

  /**
   * How a source is named in "found in …": the marker the reader saw in the answer, bracketed
   * as engines print it, else the page's host (a page no marker of this answer points at).
   * @param {string|null|undefined} marker @param {string} url
   */
  function sourceLabel(marker, url) {
    return marker ? `[${marker}]` : hostOf(url);
  }

  /** "example.org" for https://www.example.org/a; the text itself when it is no URL. @param {string} url */
  function hostOf(url) {
    try {
      return new URL(url).hostname.replace(/^www\./, '');
    } catch {
      return url;
    }
  }

  /**
   * The note beside a badge when support was found in a page the sentence does not cite
   * (issue 12): "Not in [3] — found in [5]", "No citation — found in [2]".
   * @param {{cited: string[], found: {label: string}[]}} elsewhere
   */
  function elsewherePhrase(elsewhere) {
    return `${elsewhere.cited.length ? `Not in ${elsewhere.cited.join(', ')}` : 'No citation'} — ${foundInPhrase(elsewhere)}`;
  }

  /** "found in [5]", "found in [4], example.org". @param {{found: {label: string}[]}} elsewhere */
  function foundInPhrase(elsewhere) {
    return `found in ${elsewhere.found.map((f) => f.label).join(', ')}`;
  }

  /**
   * The summary's line about support found elsewhere, '' when there is none.
   * @param {number} misplaced  sentences whose citations miss what another source of the answer has
   * @param {number} uncited    sentences citing nothing that a source of the answer supports
   */
  function elsewhereCountsPhrase(misplaced, uncited) {
    const parts = [];
    if (misplaced) parts.push(`${misplaced} sentence${misplaced === 1 ? '' : 's'} with a misplaced citation`);
    if (uncited) parts.push(`${uncited} without citation`);
    return parts.length ? `Found in another source: ${parts.join(', ')}` : '';
  }

  /**
   * The overlay's view of a statement line's `found_elsewhere` (docs/api.md): how the reader
   * knows its own sources and the ones where support was found. The content script puts it on
   * the statement's view as `elsewhere`.
   * @param {import('../shared/types.js').StatementLine} line
   * @param {import('../shared/types.js').VerifyRequest} request
   * @param {Map<string, {title?: string}>} [sources]  the `source` lines by url, for page titles
   * @returns {{cited: string[], found: {label: string, url: string, title: string, judgment: string, quotes: {text: string, href: string}[]}[]}}
   */
  function elsewhereView(line, request, sources) {
    const byId = new Map(request.citations.map((c) => [c.id, c]));
    const cited = [];
    for (const id of line.citations || []) {
      const c = byId.get(id);
      const label = c ? sourceLabel(c.marker, c.url) : '';
      if (label && !cited.includes(label)) cited.push(label);
    }
    const found = (line.found_elsewhere || []).map((f) => ({
      label: sourceLabel(f.marker, f.url),
      url: f.url,
      title: (sources && sources.get(f.url)?.title) || '',
      judgment: f.judgment,
      quotes: (f.evidence || []).slice(0, 2).map((e) => ({ text: e.text, href: e.fragment_url || CL.overlay.fragmentUrl(f.url, e.text) })),
    }));
    return { cited, found };
  }

  CL.overlay = Object.assign(CL.overlay || {}, {
    KINDS,
    ATTENTION_KINDS,
    kindOf,
    badgeLabel,
    verdictPhrase,
    countsPhrase,
    sourcesPhrase,
    sourceLabel,
    hostOf,
    elsewherePhrase,
    foundInPhrase,
    elsewhereCountsPhrase,
    elsewhereView,
  });
})((globalThis.CiteLens ??= {}));
