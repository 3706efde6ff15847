/*
 * The content side of one toolbar click: capture the answer, hand the request to the service
 * worker, turn streamed lines into badges, keep them anchored while the page changes, export.
 *
 * Runs in: content scripts, injected on click after the activeTab grant. The last file injected:
 * it wires adapters, anchoring and the overlay together, and is the only part that knows all
 * three.
 */
'use strict';
(function (CL) {
  const api = /** @type {typeof chrome} */ (globalThis.browser || globalThis.chrome);
  const { MSG } = CL;
  const { t, plural } = CL.i18n;
  const REANCHOR_DELAY_MS = 200;
  // The answer is read once the page has stopped changing it for QUIET_MS (an engine still
  // streaming, a late script filling it in, a fold opening), and at the latest SETTLE_MAX_MS
  // after the click: the same page gives the same badges every time (issue 60), where a fixed
  // wait caught whatever the page held at that moment.
  const QUIET_MS = 250;
  const SETTLE_MAX_MS = 3000;

  /** @type {Run|null} */
  let current = null;
  /** @type {any} an overlay that only shows why capturing failed */
  let errorOverlay = null;

  class Run {
    /**
     * @param {{capture: any, map: any, container: Element}} captured
     * @param {any} request
     */
    constructor(captured, request) {
      this.id = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
      this.capture = captured.capture;
      this.map = captured.map;
      this.container = captured.container;
      this.request = request;
      this.url = location.href;
      this.selectionText = selectedText();
      /** @type {Map<string, {url: string, status: string, reason?: string, title?: string, via?: string, browser_may_read?: boolean}>} */
      this.sources = new Map();
      /** @type {Map<number, any>} */
      this.lines = new Map();
      /** @type {Map<number, {start: number, end: number, exact: string}>} */
      this.selectors = new Map();
      this.expected = 0;
      this.summary = null;
      this.finished = false;
      this.overlay = new CL.overlay.Overlay(document, {
        onExport: () => exportAudit(this),
        onSaveForBatch: () => saveForBatch(this),
        onClose: () => clear(true),
        onOptions: () => api.runtime.sendMessage({ type: MSG.OPEN_OPTIONS }),
        onReadInBrowser: () => void this.readInBrowser(),
      });
      const hidden = this.capture.hidden_sources;
      this.hiddenNote = hidden.unresolved
        ? plural(hidden.unresolved, 'note_hidden_sources_one', 'note_hidden_sources_other', hidden.unresolved)
        : '';
      this.observer = new MutationObserver(() => this.scheduleReanchor());
      this.observer.observe(document.body, { childList: true, subtree: true, characterData: true });
      this.timer = 0;
    }

    /** @param {any} line */
    onLine(line) {
      const bar = this.overlay.bar;
      if (line.type === 'start') {
        this.expected = line.statements;
        bar.working(
          t(
            'working_checking',
            plural(line.statements, 'count_sentences_one', 'count_sentences_other', line.statements),
            plural(line.sources, 'count_sources_one', 'count_sources_other', line.sources),
          ),
        );
      } else if (line.type === 'source') {
        this.sources.set(line.url, line);
      } else if (line.type === 'statement') {
        this.lines.set(line.index, line);
        const [start, end] = line.span;
        this.selectors.set(line.index, CL.anchoring.selectorFor(this.map.text, start, end));
        const range = this.map.rangeFor(start, end);
        const view = CL.content.statementView(line, this.request, this.sources);
        this.overlay.show(line.index, range ? [range] : [], view);
        bar.working(plural(this.expected || 2, 'working_checked_one', 'working_checked_other', this.lines.size, this.expected || '?'));
      } else if (line.type === 'summary') {
        this.summary = line;
      }
    }

    /** @param {{code: string, message: string}|undefined} error */
    onEnd(error) {
      this.finished = true;
      const bar = this.overlay.bar;
      if (error && !this.lines.size) {
        bar.error(error.message, { options: error.code === 'not_paired' || error.code === 'bad_token' });
        return;
      }
      // Counted from the sentences shown, as their badges say them: complete support read with
      // low confidence apart, a contradicted sentence once, in its judgment (issue 60).
      const { counts, contradicted } = CL.overlay.tally(this.lines.values());
      const warning = error
        ? error.message
        : this.summary
          ? ''
          : plural(this.expected || 2, 'partial_results_one', 'partial_results_other', this.lines.size, this.expected || '?');
      bar.done({
        counts,
        contradicted,
        recall: this.summary ? this.summary.citation_recall : undefined,
        precision: this.summary ? this.summary.citation_precision : undefined,
        misplaced: this.summary ? this.summary.misplaced_citations : 0,
        uncitedSupported: this.summary ? this.summary.uncited_but_supported : 0,
        over: this.summary ? this.summary.computed_over : undefined,
        warning,
        note: this.hiddenNote,
        browserReadable: [...new Set(this.browserReadable().map((/** @type {string} */ u) => new URL(u).host))],
        readByBrowser: [...this.sources.values()].filter((s) => s.via === 'browser' && s.status === 'ok').length,
      });
    }

    /**
     * "Read through my browser": the background asks the reader's permission in an extension
     * page, reads the pages and checks the answer again; its lines then replace the verdicts.
     */
    async readInBrowser() {
      const urls = this.browserReadable();
      if (!urls.length) return;
      const bar = this.overlay.bar;
      bar.readingInBrowser(t('read_waiting_permission'));
      bar.status(t('read_permit_opened'));
      let reply;
      try {
        reply = await api.runtime.sendMessage({ type: MSG.READ_IN_BROWSER, runId: this.id, request: this.request, urls });
      } catch (error) {
        reply = { error: { message: t('extension_no_answer_why', String(error)) } };
      }
      if (!reply || reply.error) {
        bar.readingInBrowser(null);
        bar.status(reply ? reply.error.message : t('extension_no_answer'));
        return;
      }
      // The re-check's lines follow (start, source, statement…, summary), as after a click.
      this.finished = false;
      this.summary = null;
    }

    /**
     * The sources the reader's browser may read (browser_may_read) and whose reading can change a
     * verdict: cited where the companion could not read them, not only by sentences left
     * unchecked for their language, which no page read anywhere would get judged (issue 60).
     */
    browserReadable() {
      return CL.browserRead.browserReadable(this.sources.values(), this.lines.values());
    }

    scheduleReanchor() {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => ((this.timer = 0), this.reanchor()), REANCHOR_DELAY_MS);
    }

    /** Re-anchors now if the page changed and the debounce has not fired yet. */
    flush() {
      if (!this.timer) return;
      clearTimeout(this.timer);
      this.timer = 0;
      this.reanchor();
    }

    /**
     * The engine re-rendered: read the answer again and find each sentence by its old position,
     * else by its text (anchoring/quote.js). Sentences that are gone lose their badge's place.
     */
    reanchor() {
      if (location.href !== this.url && this.finished) {
        // An engine that swaps answers in place (a new thread, a follow-up) keeps the old badges off.
        this.overlay.bar.status(t('page_changed'));
      }
      if (this.map.isLive() && this.container.isConnected && CL.anchoring.buildTextMap(this.container).text === this.plainText()) {
        return;
      }
      let fresh = null;
      try {
        fresh = CL.adapters.captureAnswer(document, { url: location.href, selection: null });
      } catch {
        // The answer is gone (new search, engine error): nothing to anchor to.
      }
      const moved = new Map();
      for (const [index, selector] of this.selectors) {
        const at = fresh && CL.anchoring.locate(fresh.map.text, selector);
        const range = at && fresh.map.rangeFor(at.start, at.end);
        moved.set(index, range ? [range] : []);
      }
      if (fresh) {
        this.map = fresh.map;
        this.container = fresh.container;
        this.selectors = new Map([...this.selectors].map(([i, s]) => {
          const at = CL.anchoring.locate(fresh.map.text, s);
          return [i, at ? CL.anchoring.selectorFor(fresh.map.text, at.start, at.end) : s];
        }));
      }
      this.overlay.reanchor(moved);
    }

    /** The container's text as first read, with markers dropped and no adapter hooks. */
    plainText() {
      if (this.plain === undefined) this.plain = CL.anchoring.buildTextMap(this.container).text;
      return this.plain;
    }

    destroy() {
      clearTimeout(this.timer);
      this.observer.disconnect();
      this.overlay.destroy();
    }
  }

  function selectedText() {
    const selection = document.getSelection();
    return selection && !selection.isCollapsed ? selection.toString() : '';
  }

  /** @param {boolean} notify  tell the service worker, which removes the page stylesheet */
  function clear(notify) {
    if (current) current.destroy();
    current = null;
    if (notify) api.runtime.sendMessage({ type: MSG.CLEARED }).catch(() => {});
  }

  async function toggle() {
    if (current) {
      // A click just after the engine re-rendered judges the page as re-anchored, not as it was.
      current.flush();
      const same =
        current.url === location.href &&
        selectedText() === current.selectionText &&
        current.map.isLive() &&
        current.map.text === current.capture.text;
      if (same) {
        clear(false);
        return { kind: 'cleared' };
      }
      clear(false); // the page changed under the overlay: check it again
    }
    // A fold opened by the adapter lays out through styles and classes: those changes count too.
    const expanded = CL.adapters.prepareFor(document, location.href) > 0;
    await settled(document, expanded);
    const selection = document.getSelection();
    let captured;
    try {
      captured = CL.adapters.captureAnswer(document, { url: location.href, selection });
    } catch (error) {
      const failure =
        error instanceof CL.adapters.CaptureError
          ? error
          : Object.assign(new Error(t('capture_failed', String(error))), { code: 'internal' });
      showCaptureError(failure);
      return { kind: 'error', error: { code: failure.code, message: failure.message } };
    }
    const request = CL.content.buildRequest(captured.capture, {
      url: location.href,
      title: document.title,
      capturedAt: new Date(),
    });
    current = new Run(captured, request);
    current.overlay.bar.working(plural(request.citations.length, 'working_sending_one', 'working_sending_other', request.citations.length));
    return { kind: 'capture', runId: current.id, request };
  }

  /**
   * Resolves once the page has made no change for QUIET_MS, or SETTLE_MAX_MS after the call.
   * @param {Document} doc @param {boolean} layout  count style, class and visibility changes too
   */
  function settled(doc, layout) {
    return new Promise((resolve) => {
      let quiet = 0;
      const done = () => {
        observer.disconnect();
        clearTimeout(quiet);
        clearTimeout(latest);
        resolve(undefined);
      };
      const observer = new MutationObserver(() => {
        clearTimeout(quiet);
        quiet = setTimeout(done, QUIET_MS);
      });
      observer.observe(doc.body || doc.documentElement, {
        childList: true,
        subtree: true,
        characterData: true,
        ...(layout ? { attributes: true, attributeFilter: ['style', 'class', 'hidden', 'aria-expanded', 'aria-hidden'] } : {}),
      });
      quiet = setTimeout(done, QUIET_MS);
      const latest = setTimeout(done, SETTLE_MAX_MS);
    });
  }

  /** A capture failure still gets the bar, so the reader sees what to do. @param {Error & {code: string}} error */
  function showCaptureError(error) {
    const overlay = new CL.overlay.Overlay(document, {
      onExport: () => {},
      onClose: () => overlay.destroy(),
      onOptions: () => {},
    });
    overlay.bar.error(error.message);
    overlay.host.dataset.error = error.code;
    // Lives until closed or the next click; the next click starts from a clean page.
    errorOverlay = overlay;
  }

  /** @param {Run} run */
  async function exportAudit(run) {
    run.overlay.bar.exporting(true);
    try {
      const reply = await api.runtime.sendMessage({ type: MSG.EXPORT_AUDIT, body: auditBody(run) });
      if (!reply || reply.error) throw new Error(reply ? reply.error.message : t('export_no_answer'));
      const name = CL.content.auditFileName(location.href, new Date());
      CL.content.saveJson(run.overlay.layer, name, reply.audit);
      run.overlay.bar.status(t('export_saved', name));
    } catch (error) {
      run.overlay.bar.status(t('export_failed', /** @type {Error} */ (error).message));
    } finally {
      run.overlay.bar.exporting(false);
    }
  }

  /**
   * The answer as it was sent to the companion, one line of JSON: `citelens audit-batch` reads
   * files of such lines and gives each the card /v1/audit would (docs/batch.md). @param {Run} run
   */
  function saveForBatch(run) {
    const name = CL.content.batchFileName(location.href, new Date());
    CL.content.saveJsonLine(run.overlay.layer, name, run.request);
    run.overlay.bar.status(t('batch_saved', name));
  }

  /**
   * The result id the companion handed out, so that the card is built from the result it holds and
   * vouches for; the result as streamed goes too, for a companion that no longer holds it (the card
   * then says its verdicts came from the extension). @param {Run} run
   */
  function auditBody(run) {
    const statements = [...run.lines.values()].sort((a, b) => a.index - b.index).map(({ type: _type, ...rest }) => rest);
    const summary = run.summary ? (({ type: _type, ...rest }) => rest)(run.summary) : undefined;
    const sources = [...run.sources.values()].map(({ type: _type, ...rest }) => rest);
    const held = summary && typeof summary.result_id === 'string' ? { result_id: summary.result_id } : {};
    return { ...run.request, options: { stream: false }, ...held, result: { statements, sources, summary } };
  }

  api.runtime.onMessage.addListener((message, _sender, sendResponse) => {
    if (message.type === MSG.TOGGLE) {
      if (errorOverlay) {
        errorOverlay.destroy();
        errorOverlay = null;
      }
      toggle().then(sendResponse, (error) => sendResponse({ kind: 'error', error: { code: 'internal', message: String(error) } }));
      return true;
    }
    if (message.type === MSG.STREAM_LINE && current && message.runId === current.id) current.onLine(message.line);
    if (message.type === MSG.STREAM_END && current && message.runId === current.id) current.onEnd(message.error);
    return false;
  });

  CL.controller = { loaded: true, state: () => (current ? { runId: current.id, finished: current.finished } : null) };
})((globalThis.CiteLens ??= {}));
