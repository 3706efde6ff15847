/*
 * How each verdict is shown and spoken: icon + word + colour, never colour alone (WCAG 1.4.1),
 * and the underline style differs too, for readers who cannot tell the colours apart.
 *
 * Runs in: content scripts. Data only.
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
    no_citation: { icon: '?', word: 'No citation', phrase: 'No citation for this sentence', action: '' },
  });

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
   * The badge's accessible name, e.g. "Fully supported by source 1 — show evidence".
   * @param {string} kind @param {number[]} sources
   */
  function ariaLabel(kind, sources) {
    const k = KINDS[kind];
    if (kind === 'no_citation') return k.phrase;
    return `${k.phrase} ${sourcesPhrase(sources)} — ${k.action}`;
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

  CL.overlay = Object.assign(CL.overlay || {}, { KINDS, kindOf, ariaLabel, countsPhrase, sourcesPhrase });
})((globalThis.CiteLens ??= {}));
