/*
 * The wire shapes, as JSDoc typedefs (no runtime code). One place for what crosses a boundary:
 * adapters → content → service worker → companion (docs/api.md), and the stream coming back.
 * Kept in sync with companion/records.py by hand; the end-to-end test exercises both sides.
 */

/**
 * @typedef {'complete_support'|'partial_support'|'no_support'|'inaccessible'|'not_checked'|'no_citation'} Judgment
 */

/**
 * One citation marker as an adapter found it.
 * @typedef {object} CapturedCitation
 * @property {number} offset  where the marker stood in Capture.text, a JavaScript string index:
 *   UTF-16 code units, the unit of every answer position in docs/api.md
 * @property {string} url     normalized: redirectors unwrapped, tracking parameters and `#:~:text=` dropped
 * @property {string} marker  what the reader saw ("1", "reddit +2"); the companion only echoes it
 * @property {string} [hint]  the sentence of the engine's own `#:~:text=` link, a free evidence hint
 * @property {number} [block_start]  where the paragraph or list item this chip closes begins, for
 *   an engine whose chips cite their whole block (adapter `citesBlock`); same unit as offset
 */

/**
 * What an adapter returns for the answer on the page.
 * @typedef {object} Capture
 * @property {string} text                  the answer as plain text, block elements as line breaks, markers removed
 * @property {CapturedCitation[]} citations
 * @property {string} query                 the question the answer replies to, '' when unknown
 * @property {string} engine                perplexity | chatgpt | google-ai-overview | google-ai-mode | copilot | phind | generic
 * @property {string} adapter               id of the adapter that produced this capture
 * @property {string} adapter_version       that adapter's lastUpdated
 * @property {{chips: number, unresolved: number}} hidden_sources  "+N" chips: sources they hide, and how many of those, and of chips with no link at all, had no URL in the page (unchecked sources)
 */

/**
 * The body of POST /v1/verify and /v1/audit (api.md).
 * @typedef {object} VerifyRequest
 * @property {{url: string, engine: string, title: string, query: string, captured_at: string}} page
 * @property {{text: string}} answer
 * @property {{id: string, marker: string, url: string, offset: number, hint?: string, block_start?: number}[]} citations
 * @property {{stream: boolean}} options
 */

/**
 * @typedef {object} Evidence
 * @property {string} text
 * @property {number} start  [start, end) in the page text the companion extracted, in code points
 *   (docs/api.md): not a string index here, and unused; quotes are found by text, prefix, suffix
 * @property {number} end
 * @property {string} prefix
 * @property {string} suffix
 * @property {string} [fragment_url]
 */

/**
 * @typedef {object} PerCitation
 * @property {string} citation   id from VerifyRequest.citations
 * @property {string} [marker]   that citation's marker, echoed
 * @property {string} url
 * @property {Judgment} judgment
 * @property {'high'|'low'|null} [confidence]  for complete_support only: "low" is likely support,
 *   to be checked against the quote (issue 58); absent from an older companion, read as "high"
 * @property {number} score
 * @property {number} [contradiction]  the source's contradiction probability
 * @property {boolean} irrelevant  ALCE precision: cannot support alone and the others suffice without it
 * @property {Evidence[]} evidence  for a no_support source of a contradicted statement: the sentence that says otherwise
 * @property {string[]} [unsupported_assertions]
 * @property {string} [reason]   why it could not be read, when inaccessible
 * @property {string[]} [reasons]  what decided its judgment, strongest first (docs/api.md "reasons"):
 *   model.entailment, model.no_entailment, model.contradiction, model.conflicting_reading,
 *   wording.says_otherwise, score.below_complete, score.below_partial, claims.unsupported,
 *   rule:<language>.<family>; empty for inaccessible and not_checked; always sent by this
 *   companion, missing from an older one
 * @property {Record<string, Record<string, string>>} [reason_details]  a reason's particulars by
 *   id: rule:<language>.another_number has {claim, source}, both values as written
 * @property {Evidence[]} [says_otherwise]  the sentence of the source that says the opposite of
 *   the claim, shown beside the support, never among `evidence`; missing from an older companion
 */

/**
 * Support found in a page of the answer that the statement does not cite (issue 12), apart from
 * the statement's own judgment.
 * @typedef {object} FoundElsewhere
 * @property {string} url
 * @property {string|null} citation  the answer's first citation of that page, null when none points there
 * @property {string|null} marker    that citation's marker
 * @property {'complete_support'|'partial_support'} judgment
 * @property {number} score
 * @property {Evidence[]} evidence
 */

/**
 * @typedef {object} StatementLine
 * @property {'statement'} type
 * @property {number} index
 * @property {string} text
 * @property {[number, number]} span   [start, end) in VerifyRequest.answer.text, in UTF-16 code units (string indices)
 * @property {string[]} citations
 * @property {'marker'|'block'|null} [cited_by]  by a marker of its own, or by the link closing its paragraph; null when it cites nothing
 * @property {Judgment} judgment
 * @property {'high'|'low'|null} [confidence]  as PerCitation's: complete_support with "low" is
 *   shown as its own state, "Likely supported: check the quote", never as the plain green
 * @property {boolean} contradicted  a cited source says the opposite; judgment is then no_support or partial_support
 * @property {number} score
 * @property {PerCitation[]} per_citation
 * @property {string[]} evidence_sentences
 * @property {string[]} unsupported_assertions
 * @property {{text: string, score: number, supported: boolean}[]} [claims]
 * @property {FoundElsewhere[]} [found_elsewhere]  best first; empty when fully supported or nothing was found
 * @property {string[]} [reasons]  what decided its judgment, strongest first: the ids of
 *   PerCitation.reasons; empty for no_citation, inaccessible and not_checked; missing from an
 *   older companion. The card shows them as "Why this verdict" (overlay/reasons.js reasonWords)
 * @property {Record<string, Record<string, string>>} [reason_details]  as PerCitation's
 * @property {string} [language]  ISO 639-1 of the answer (detected once for it), "und" when it
 *   could not be told
 * @property {string} [model]  the model that judged it; the default's name also where no model
 *   read a source for it (not_checked, inaccessible, no_citation), '' in a language no model reads
 * @property {string} [model_version]  that model's version, beside its name
 */

/**
 * @typedef {object} SummaryLine
 * @property {'summary'} type
 * @property {number} citation_recall
 * @property {number} citation_precision
 * @property {Record<Judgment, number>} counts
 * @property {number} [misplaced_citations]    statements with citations whose support was found in another page
 * @property {number} [uncited_but_supported]  statements citing nothing that a page of the answer supports
 * @property {number} [block_cited]  statements cited by the link closing their paragraph, not a marker of their own
 * @property {{statements: number, citations: number, block_cited: number}} [computed_over]  what the
 *   ALCE figures were computed over: recall over `statements` (those citing a page that could be
 *   read), `block_cited` of them; precision over their `citations` of readable pages
 * @property {number} [elapsed_ms]
 */

/**
 * @typedef {{type: 'start', statements: number, sources: number}
 *   | {type: 'source', url: string, status: 'ok'|'inaccessible', reason?: string, title?: string}
 *   | StatementLine | SummaryLine} StreamLine
 */

/**
 * An error worded for the reader, with what to do about it.
 * @typedef {object} UserError
 * @property {string} code     not_running | not_paired | bad_token | too_old | network | partial | rejected | no_answer | no_citations | restricted_page
 * @property {string} message
 */
