/*
 * From a capture to the body of POST /v1/verify (docs/api.md), and from the streamed lines back
 * to the views the overlay shows. Runs in: content scripts. Pure.
 */
'use strict';
(function (CL) {
  /**
   * @param {import('../shared/types.js').Capture} capture
   * @param {{url: string, title: string, capturedAt: Date}} page
   * @returns {import('../shared/types.js').VerifyRequest}
   */
  function buildRequest(capture, page) {
    return {
      page: {
        url: page.url,
        engine: capture.engine,
        title: page.title,
        query: capture.query,
        captured_at: page.capturedAt.toISOString(),
        adapter: capture.adapter,
        adapter_version: capture.adapter_version,
      },
      answer: { text: capture.text },
      // The engine's text-fragment sentence travels as `hint` (api.md); the URL stays the page's.
      // `block_start`: the chip cites its whole paragraph or list item (adapters' citesBlock).
      citations: capture.citations.map((c, i) => {
        const citation = { id: `c${i + 1}`, marker: c.marker, url: c.url, offset: c.offset };
        const hinted = c.hint ? { ...citation, hint: c.hint } : citation;
        return typeof c.block_start === 'number' ? { ...hinted, block_start: c.block_start } : hinted;
      }),
      options: { stream: true },
    };
  }

  /**
   * Sources are numbered by first appearance in the answer, as engines number them.
   * @param {import('../shared/types.js').VerifyRequest} request
   * @returns {Map<string, number>}
   */
  function sourceNumbers(request) {
    const numbers = new Map();
    for (const c of request.citations) {
      const page = pageOf(c.url);
      if (!numbers.has(page)) numbers.set(page, numbers.size + 1);
    }
    return numbers;
  }

  /** A cited URL without its text fragment: the page it names. @param {string} url */
  function pageOf(url) {
    return url.replace(/#?:~:.*$/, '');
  }

  /**
   * The overlay's view of one streamed statement.
   * @param {import('../shared/types.js').StatementLine} line
   * @param {import('../shared/types.js').VerifyRequest} request
   * @param {Map<string, {status: string, reason?: string, title?: string, via?: string, browser_may_read?: boolean}>} sources  from the `source` lines
   */
  function statementView(line, request, sources) {
    const numbers = sourceNumbers(request);
    const byId = new Map(request.citations.map((c) => [c.id, c]));
    const perCitation = new Map((line.per_citation || []).map((p) => [p.citation, p]));
    /** @type {Map<string, any>} */
    const views = new Map();
    for (const id of line.citations || []) {
      const cited = byId.get(id);
      const judged = perCitation.get(id);
      // The companion names pages by its own normal form (judged.url); the reader knows them by
      // the number the answer gave them.
      const url = cited ? pageOf(cited.url) : judged && judged.url;
      if (!url) continue;
      // The reader knows a page by the marker the answer shows for it here ("archi +2",
      // "almanac", "[1]"), else by its host: never by a number the answer does not print.
      const marker = (cited && cited.marker) || CL.overlay.hostOf(url);
      if (views.has(url)) {
        const seen = views.get(url);
        if (!seen.markers.includes(marker)) seen.markers.push(marker);
        continue;
      }
      const source = (judged && sources.get(judged.url)) || sources.get(url) || { status: 'ok' };
      const unread = source.status === 'inaccessible' ? source.reason || 'unavailable' : '';
      // A language no model reads is why the sentence was not judged, whatever the page: it is
      // said first, and a page that could not be read either is a second fact (issue 60).
      const unchecked = judged && judged.judgment === 'not_checked' ? judged.reason || '' : '';
      views.set(url, {
        n: numbers.get(url) || numbers.size + 1,
        markers: [marker],
        url,
        title: source.title || '',
        judgment: judged ? judged.judgment : source.status === 'inaccessible' ? 'inaccessible' : 'no_support',
        // Complete support read with low confidence (api.md `confidence`; missing: high).
        likely: !!(judged && judged.judgment === 'complete_support' && judged.confidence === 'low'),
        irrelevant: !!(judged && judged.irrelevant),
        via: source.via || '',
        // The browser is offered only where what it reads can be judged: not for a sentence
        // left unchecked for its language.
        browserMayRead: source.browser_may_read === true && source.via !== 'browser' && !unchecked,
        reason:
          unchecked ||
          unread ||
          (judged && (judged.judgment === 'inaccessible' || judged.judgment === 'not_checked') ? judged.reason || 'unavailable' : ''),
        alsoUnread: unchecked && unread ? unread : '',
        // What supports it, and apart from it the sentence that says the opposite (api.md
        // says_otherwise), each opening the page at its own sentence. A sentence the companion
        // gives as saying otherwise is never shown as support, also when evidence repeats it.
        ...supportAndOpposite(judged, url),
      });
    }
    const list = [...views.values()]
      .sort((a, b) => a.n - b.n)
      .map(({ markers, ...view }) => ({ ...view, marker: markers.join(', ') }));
    const supportive = list.filter(
      (s) => !s.irrelevant && (s.judgment === 'complete_support' || s.judgment === 'partial_support'),
    );
    const kind = CL.overlay.kindOf(line);
    const shownSources =
      kind === 'no_citation' ? [] : kind === 'inaccessible' || kind === 'not_checked' ? list.filter((s) => s.reason) : supportive.length && kind !== 'contradicted' ? supportive : list;
    return {
      index: line.index,
      judgment: line.judgment,
      kind,
      text: line.text,
      // 'block': cited by the link closing its paragraph, not a marker of its own (api.md).
      citedBy: line.cited_by || null,
      sources: list,
      unsupported: line.unsupported_assertions || [],
      // What decided the verdict (api.md "reasons"); an older companion sends none.
      reasons: Array.isArray(line.reasons) ? line.reasons.filter((r) => typeof r === 'string') : [],
      // Their particulars (another_number's two values), the statement's, else its citations'.
      reasonDetails: reasonDetails([line, ...(line.per_citation || [])]),
      supportingSources: (shownSources.length ? shownSources : list).map((s) => s.n),
      // The same sources as the page marks them, each label once ("archi +2" stands for three).
      markers: [...new Set((shownSources.length ? shownSources : list).map((s) => s.marker))],
      elsewhere: CL.overlay.elsewhereView(line, request, sources),
      judgedIn: judgedIn(line),
    };
  }

  /** The verdicts a model reached by reading a source. */
  const READ_BY_MODEL = new Set(['complete_support', 'partial_support', 'no_support']);

  /**
   * The language the sentence was judged in and the model that judged it (api.md `language`,
   * `model`, `model_version`): model '' where no model read a source for it (not checked,
   * nothing readable, no citation), whose line still names the default model. Null from an older
   * companion, which sends no language, or no model for a sentence a model did read.
   * @param {import('../shared/types.js').StatementLine} line
   * @returns {{language: string, model: string}|null}
   */
  function judgedIn(line) {
    const text = (/** @type {unknown} */ value) => (typeof value === 'string' ? value.trim() : '');
    const language = text(line.language);
    if (!language) return null;
    const found = Array.isArray(line.found_elsewhere) && line.found_elsewhere.length > 0;
    if (!READ_BY_MODEL.has(line.judgment) && !found) return { language, model: '' };
    const model = text(line.model);
    return model ? { language, model: [model, text(line.model_version)].filter(Boolean).join(' ') } : null;
  }

  /**
   * A citation's quotes: `quotes` (its evidence, at most two) and `saysOtherwise` (its
   * says_otherwise, at most two; empty from a companion that sends none), each {text, href}.
   * @param {any} judged  the citation's per_citation entry, if any
   * @param {string} url  the page
   */
  function supportAndOpposite(judged, url) {
    const toQuote = (/** @type {any} */ e) => ({ text: e.text, href: e.fragment_url || CL.overlay.fragmentUrl(url, e.text) });
    const usable = (/** @type {unknown} */ list) =>
      (Array.isArray(list) ? list : []).filter((e) => e && typeof e.text === 'string' && e.text.trim());
    const saysOtherwise = usable(judged && judged.says_otherwise).slice(0, 2).map(toQuote);
    const opposite = new Set(saysOtherwise.map((q) => sameText(q.text)));
    const quotes = usable(judged && judged.evidence)
      .filter((e) => !opposite.has(sameText(e.text)))
      .slice(0, 2)
      .map(toQuote);
    return { quotes, saysOtherwise };
  }

  /** A quote's words, for telling whether two quotes are the same sentence. @param {string} text */
  function sameText(text) {
    return text.replace(/\s+/g, ' ').trim();
  }

  /**
   * `reason_details` (api.md) of the statement line and then its citations, merged: for each
   * reason id the first that has any, with only its string values; anything of another shape
   * is dropped, never shown as it came.
   * @param {any[]} lines  the statement line, then its per_citation entries
   * @returns {Record<string, Record<string, string>>}
   */
  function reasonDetails(lines) {
    /** @type {Record<string, Record<string, string>>} */
    const out = {};
    for (const line of lines) {
      const details = line && line.reason_details;
      if (!details || typeof details !== 'object' || Array.isArray(details)) continue;
      for (const [id, values] of Object.entries(details)) {
        if (id === '__proto__' || Object.hasOwn(out, id) || !values || typeof values !== 'object' || Array.isArray(values)) continue;
        const kept = Object.fromEntries(Object.entries(values).filter(([, v]) => typeof v === 'string'));
        if (Object.keys(kept).length) out[id] = kept;
      }
    }
    return out;
  }

  /** citelens-audit-<host>-<yyyymmdd-hhmm>.json, local time. @param {string} url @param {Date} when */
  function auditFileName(url, when) {
    return `citelens-audit-${fileStamp(url, when)}.json`;
  }

  /**
   * The file "Save this answer for a batch audit" writes: one /v1/verify body on one line, so
   * that files can be joined (`cat *.jsonl`) into the INPUT of `citelens audit-batch`.
   * @param {string} url @param {Date} when
   */
  function batchFileName(url, when) {
    return `citelens-batch-${fileStamp(url, when)}.jsonl`;
  }

  /** "host-YYYYMMDD-HHMM", local time. @param {string} url @param {Date} when */
  function fileStamp(url, when) {
    const host = new URL(url).hostname.replace(/[^a-z0-9.-]/gi, '_') || 'page';
    const two = (/** @type {number} */ n) => String(n).padStart(2, '0');
    return `${host}-${when.getFullYear()}${two(when.getMonth() + 1)}${two(when.getDate())}-${two(when.getHours())}${two(when.getMinutes())}`;
  }

  CL.content = Object.assign(CL.content || {}, { buildRequest, sourceNumbers, statementView, auditFileName, batchFileName, pageOf });
})((globalThis.CiteLens ??= {}));
