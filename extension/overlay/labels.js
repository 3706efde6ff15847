/*
 * How each verdict is shown and spoken: icon + word + colour, never colour alone (WCAG 1.4.1),
 * and the underline style differs too, for readers who cannot tell the colours apart.
 *
 * Runs in: content scripts. Data, and the words made from it.
 */
'use strict';
(function (CL) {
  const { t, plural } = CL.i18n;

  /**
   * kind → what the badge shows. `kind` is the statement's judgment, or 'contradicted' when a
   * cited source says the opposite (that outranks the judgment: it is what a reader must see).
   * The words are read when shown (getters), in the reader's language; `verdict` says it inside
   * a sentence ("not supported by source 2"); `details`: the badge opens details, not evidence.
   */
  const KINDS = Object.freeze({
    complete_support: {
      icon: '✓',
      get word() { return t('badge_complete_support'); },
      verdict: (/** @type {string} */ sources) => t('verdict_complete_support', sources),
      details: false,
    },
    // Complete support the model read with low confidence (api.md `confidence`): never the
    // plain green; the reader is asked to look at the quote.
    likely_support: {
      icon: '≈',
      get word() { return t('badge_likely_support'); },
      verdict: (/** @type {string} */ sources) => t('verdict_likely_support', sources),
      details: false,
    },
    partial_support: {
      icon: '◐',
      get word() { return t('badge_partial_support'); },
      verdict: (/** @type {string} */ sources) => t('verdict_partial_support', sources),
      details: false,
    },
    no_support: {
      icon: '✗',
      get word() { return t('badge_no_support'); },
      verdict: (/** @type {string} */ sources) => t('verdict_no_support', sources),
      details: true,
    },
    contradicted: {
      icon: '⚠',
      get word() { return t('badge_contradicted'); },
      verdict: (/** @type {string} */ sources) => t('verdict_contradicted', sources),
      details: false,
    },
    inaccessible: {
      icon: '⊘',
      get word() { return t('badge_inaccessible'); },
      verdict: (/** @type {string} */ sources) => t('verdict_inaccessible', sources),
      details: true,
    },
    not_checked: {
      icon: '–',
      get word() { return t('badge_not_checked'); },
      verdict: (/** @type {string} */ sources) => t('verdict_not_checked', sources),
      details: true,
    },
    no_citation: {
      icon: '?',
      get word() { return t('badge_no_citation'); },
      verdict: () => t('verdict_no_citation'),
      details: false,
    },
  });

  /** The verdicts the summary lists for the reader to look at, most serious first in meaning. */
  const ATTENTION_KINDS = Object.freeze(['contradicted', 'no_support', 'partial_support', 'likely_support', 'inaccessible', 'not_checked']);

  /**
   * What a sentence's badge shows: 'contradicted' over any judgment, 'likely_support' for complete
   * support read with low confidence (a missing `confidence` is an older companion's: high), else
   * the judgment.
   * @param {{judgment: string, contradicted?: boolean, confidence?: string|null}} result
   */
  function kindOf(result) {
    if (result.contradicted) return 'contradicted';
    if (result.judgment === 'complete_support' && result.confidence === 'low') return 'likely_support';
    return result.judgment in KINDS ? result.judgment : 'no_support';
  }

  /**
   * The summary's tally: sentences per state (a judgment, or 'likely_support', which is counted
   * apart from complete support) and, per state, how many of them a source contradicts. Each
   * sentence is counted once, so the parts sum to the sentences (issue 60).
   * @param {Iterable<{judgment: string, contradicted?: boolean, confidence?: string|null}>} lines
   * @returns {{counts: Record<string, number>, contradicted: Record<string, number>}}
   */
  function tally(lines) {
    /** @type {Record<string, number>} */ const counts = {};
    /** @type {Record<string, number>} */ const contradicted = {};
    for (const line of lines) {
      const state = line.judgment === 'complete_support' && line.confidence === 'low' ? 'likely_support' : line.judgment;
      counts[state] = (counts[state] || 0) + 1;
      if (line.contradicted) contradicted[state] = (contradicted[state] || 0) + 1;
    }
    return { counts, contradicted };
  }

  /**
   * How the reader knows a sentence's sources: the page's own markers ("archi +2", "[1]"), else
   * (a view made without a capture) their numbers.
   * @param {{supportingSources: number[], markers?: string[]}} view @returns {(string|number)[]}
   */
  function markersOf(view) {
    return view.markers && view.markers.length ? view.markers : view.supportingSources;
  }

  /** "source almanac", "sources 1 and 2", "sources [1], [2] and [4]" (French: "la source 1", "les sources 1 et 2") */
  function sourcesPhrase(/** @type {(string|number)[]} */ numbers) {
    if (!numbers.length) return t('sources_none');
    if (numbers.length === 1) return t('source_numbered', numbers[0]);
    return t('sources_numbered', numbers.slice(0, -1).join(', '), numbers[numbers.length - 1]);
  }

  /**
   * The badge's accessible name: which sentence, its verdict, and what the badge opens, e.g.
   * "Sentence 3: not supported by source 2 — show details". Support found in a page the sentence
   * does not cite comes after the verdict on its own sources (that is still its verdict):
   * "Sentence 2: not supported by source 2; found in [4] — show evidence".
   * @param {number} index  the sentence's index (0-based; readers count from 1)
   * @param {string} kind @param {(string|number)[]} sources  the page's markers (markersOf)
   * @param {{found: {label: string}[]}|null} [elsewhere]
   */
  function badgeLabel(index, kind, sources, elsewhere = null) {
    const verdict = verdictPhrase(kind, sources);
    if (elsewhere) return t('badge_label_found_elsewhere', index + 1, verdict, foundLabels(elsewhere));
    if (kind === 'no_citation') return t('sentence_verdict', index + 1, verdict);
    if (KINDS[kind].details) return t('badge_label_show_details', index + 1, verdict);
    return t('badge_label_show_evidence', index + 1, verdict);
  }

  /** "Sentence 3: not supported by source 2": the summary's link to a sentence. @param {number} index @param {string} kind @param {(string|number)[]} sources */
  function sentenceVerdict(index, kind, sources) {
    return t('sentence_verdict', index + 1, verdictPhrase(kind, sources));
  }

  /** "not supported by source 2", "no citation": the verdict as said inside a sentence. @param {string} kind @param {(string|number)[]} sources */
  function verdictPhrase(kind, sources) {
    return KINDS[kind].verdict(sourcesPhrase(sources));
  }

  /** The summary's parts after "fully supported", in the order they are said. */
  const COUNT_PARTS = Object.freeze([
    ['likely_support', 'counts_likely_one', 'counts_likely_other'],
    ['partial_support', 'counts_partly_one', 'counts_partly_other'],
    ['no_support', 'counts_not_supported_one', 'counts_not_supported_other'],
    ['inaccessible', 'counts_inaccessible_one', 'counts_inaccessible_other'],
    ['not_checked', 'counts_not_checked_one', 'counts_not_checked_other'],
    ['no_citation', 'counts_without_citation_one', 'counts_without_citation_other'],
  ]);

  /**
   * "9 of 14 sentences fully supported · 2 partly · 2 not supported, 1 of them contradicted ·
   * 1 inaccessible": every non-zero count. The parts sum to the sentences: a contradicted
   * sentence is part of its judgment's count and said there (issue 60), never counted twice.
   * @param {Record<string, number>} counts  per state (tally)
   * @param {Record<string, number>} [contradicted]  per state, those a source contradicts
   */
  function countsPhrase(counts, contradicted = {}) {
    const n = (/** @type {string} */ kind) => counts[kind] || 0;
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    const against = (/** @type {string} */ kind, /** @type {string} */ part) => {
      const k = contradicted[kind] || 0;
      return k ? plural(k, 'counts_of_them_contradicted_one', 'counts_of_them_contradicted_other', part, k) : part;
    };
    const parts = [against('complete_support', plural(total, 'counts_fully_supported_one', 'counts_fully_supported_other', n('complete_support'), total))];
    for (const [kind, one, other] of COUNT_PARTS) {
      if (n(kind)) parts.push(against(kind, plural(n(kind), one, other, n(kind))));
    }
    return parts.join(' · ');
  }

  /**
   * What ALCE's figures were computed over: "Recall over the 4 sentences whose sources could be
   * read (3 cited by their paragraph's link), precision over 5 citations".
   * @param {{statements: number, citations: number, block_cited: number}} over  the summary line's computed_over
   */
  function basisPhrase(over) {
    const sentences = plural(over.statements, 'basis_sentences_one', 'basis_sentences_other', over.statements);
    const citations = plural(over.citations, 'basis_citations_one', 'basis_citations_other', over.citations);
    if (!over.block_cited) return t('summary_basis', sentences, citations);
    const block = plural(over.block_cited, 'basis_block_cited_one', 'basis_block_cited_other', over.block_cited);
    return t('summary_basis_block', sentences, block, citations);
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
    if (elsewhere.cited.length) return t('elsewhere_not_in', elsewhere.cited.join(', '), foundLabels(elsewhere));
    return t('elsewhere_no_citation', foundLabels(elsewhere));
  }

  /** "found in [5]", "found in [4], example.org". @param {{found: {label: string}[]}} elsewhere */
  function foundInPhrase(elsewhere) {
    return t('found_in', foundLabels(elsewhere));
  }

  /** "[4], example.org" @param {{found: {label: string}[]}} elsewhere */
  function foundLabels(elsewhere) {
    return elsewhere.found.map((f) => f.label).join(', ');
  }

  /**
   * The summary's line about support found elsewhere, '' when there is none.
   * @param {number} misplaced  sentences whose citations miss what another source of the answer has
   * @param {number} uncited    sentences citing nothing that a source of the answer supports
   */
  function elsewhereCountsPhrase(misplaced, uncited) {
    const parts = [];
    if (misplaced) parts.push(plural(misplaced, 'elsewhere_misplaced_one', 'elsewhere_misplaced_other', misplaced));
    if (uncited) parts.push(plural(uncited, 'elsewhere_uncited_one', 'elsewhere_uncited_other', uncited));
    return parts.length ? t('elsewhere_counts', parts.join(', ')) : '';
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
    tally,
    markersOf,
    badgeLabel,
    sentenceVerdict,
    verdictPhrase,
    countsPhrase,
    basisPhrase,
    sourcesPhrase,
    sourceLabel,
    hostOf,
    elsewherePhrase,
    foundInPhrase,
    elsewhereCountsPhrase,
    elsewhereView,
  });
})((globalThis.CiteLens ??= {}));
