/*
 * Google AI Overview, above the results of a normal search. Runs in: content scripts.
 *
 * Three layouts coexist (docs/engines.md). The oldest folds the overview until "Show more" is pressed
 * (`aria-controls="m-x-content"`) and cites with link groups (`data-subtree="msc"`) behind
 * Google's /url?q= redirector. July 2025: the answer in `div.LT6XE`, sentences in
 * `span[data-huuid]`, "View related links" chips `span.pjBG2e` > `div.NPrrbc[data-uuids]`.
 * November 2025: text in `span.T286Pc`, citations are buttons with a uuid and no href
 * (`button.rBl3me[data-icl-uuid]`), resolved through JSON kept in `<!--Sv6Kpe[...]-->` comments.
 * The source list beside the answer repeats the sources without positions: not answer text.
 *
 * The comment map is Google's, and Google AI Mode (next file) reads it the same way.
 */
'use strict';
(function (CL) {
  // Google's app: search, maps, sign-in and consent. Its documentation (support., developers.,
  // cloud.), sites.google.com, books, patents and YouTube are sources like any other (issue 25).
  const GOOGLE = /^((www|accounts|consent|maps|translate|lens|images|news|scholar)\.)?google\.[a-z]{2,3}(\.[a-z]{2})?$/;
  const HTTP = /^https?:\/\//i;
  const ENTITIES = { '&quot;': '"', '&amp;': '&', '&lt;': '<', '&gt;': '>', '&#39;': "'", '&#x27;': "'" };
  // Sv6Kpe: AI Overview (2025); TgQPHd|: AI Mode (2026).
  const MAP_PREFIXES = ['Sv6Kpe', 'TgQPHd|'];
  const ID_ATTRIBUTES = ['data-icl-uuid', 'data-uuids'];

  /**
   * id → source URLs from the page's comments: `<!--Sv6Kpe[["<uuid>", [title, snippet, favicon,
   * site, [name], url, …]], …]-->`. Saved pages keep the JSON's quotes escaped (`&quot;`): DevTools
   * writes comments as they are, so both forms are read.
   * @param {Document} doc
   * @returns {Map<string, string[]>}
   */
  function sourceMap(doc) {
    const map = new Map();
    const walker = doc.createTreeWalker(doc, 128 /* NodeFilter.SHOW_COMMENT */);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const data = /** @type {Comment} */ (node).data;
      const prefix = MAP_PREFIXES.find((p) => data.startsWith(p));
      if (!prefix || !data.includes('http')) continue;
      let entries;
      try {
        entries = JSON.parse(data.slice(prefix.length).replace(/&(quot|amp|lt|gt|#39|#x27);/g, (m) => ENTITIES[m]));
      } catch {
        continue; // other payloads share the prefix (code blocks, LaTeX)
      }
      for (const entry of Array.isArray(entries) ? entries : []) {
        if (!Array.isArray(entry) || typeof entry[0] !== 'string' || !Array.isArray(entry[1])) continue;
        const record = entry[1];
        // The URL's place in the record; else its last direct http string (favicon and site come first).
        const url =
          typeof record[5] === 'string' && HTTP.test(record[5])
            ? record[5]
            : record.filter((v) => typeof v === 'string' && HTTP.test(v) && !/favicon/i.test(v)).pop();
        if (url) map.set(entry[0], (map.get(entry[0]) || []).concat(url));
      }
    }
    return map;
  }

  // Parsed once per document; parsed again when an id is missing (a new turn streamed in).
  /** @type {WeakMap<Document, Map<string, string[]>>} */
  const maps = new WeakMap();

  /** A citation's links and the sources its uuids name in the page's map. @param {Element} el */
  function citationUrls(el) {
    const urls = CL.adapters.defaultCitationUrls(el);
    const ids = [el, ...el.querySelectorAll('*')].flatMap((node) =>
      ID_ATTRIBUTES.flatMap((name) => (node.getAttribute(name) || '').split(',').map((id) => id.trim()).filter(Boolean)),
    );
    if (!ids.length) return urls;
    const doc = el.ownerDocument;
    let map = maps.get(doc);
    if (!map || ids.some((id) => !map?.has(id))) maps.set(doc, (map = sourceMap(doc)));
    return urls.concat(ids.flatMap((id) => map?.get(id) || []));
  }

  CL.adapters.googleCitationUrls = citationUrls;

  CL.adapters.define({
    meta: {
      id: 'google-ai-overview',
      label: 'Google AI Overview',
      engine: 'google-ai-overview',
      target: /^https:\/\/www\.google\.[a-z.]+\/search\?(?!.*[?&]udm=50(&|$))/,
      lastUpdated: '2026-12-06',
    },
    ownHosts: [GOOGLE, 'gstatic.com', 'googleusercontent.com'],
    ownRedirectors: [{ path: /^\/url$/, params: ['q', 'url'] }],
    // One chip ends a paragraph or list item for all of it (issue 25; seen on saved pages).
    citesBlock: true,
    // A plain link chip closing a paragraph cites it too (issue 60): links in the answer are
    // citations, a short one after a sentence's end a chip whose words are not answer text.
    inlineLinks: true,
    selectors: {
      signature: ['#m-x-content', '[aria-controls="m-x-content"]', '[data-mcpr]', 'div.LT6XE'],
      // The whole overview, never one of its blocks (div.WaaZC): a block holding as many
      // citations as the overview, the others citing nothing, left out the list items under the
      // answer's own headings (issue 60).
      containers: ['#m-x-content', '[data-mcpr]', 'div.LT6XE'],
      citations: [
        'div[data-subtree="msc"]',
        'span[data-subtree="msc"]',
        'span.uJ19be',
        'button[data-icl-uuid]',
        'span.pjBG2e',
        'div.NPrrbc[data-uuids]',
      ],
      expand: ['[aria-expanded="false"][aria-controls="m-x-content"]'],
      query: ['textarea[name="q"]', 'input[name="q"]'],
      skip: [
        '[data-source-column]',
        '[aria-label="AI Overview sources"]',
        '[data-container-id="rhs-col"]',
        'ul.bTFeG',
        'li.LLtSOc',
        'ul:has(> li.LLtSOc)',
        'div.Fzsovc[role="heading"]',
        // Controls ("Show more AI Overview", feedback): words of the page, not of the answer.
        '[role="button"]',
      ],
    },
    citationUrls,
    /** The containers above, and failing those the block under an "AI Overview" heading. */
    candidates(doc) {
      const found = CL.adapters.queryAll(doc, this.selectors.containers);
      if (found.length) return found;
      const headings = [...doc.querySelectorAll('h1, h2, [role="heading"]')].filter(
        (el) => (el.textContent || '').trim() === 'AI Overview',
      );
      return headings.map((h) => h.parentElement).filter((el) => el !== null);
    },
  });
})((globalThis.CiteLens ??= {}));
