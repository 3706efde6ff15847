/*
 * The summary panel: progress while the stream arrives, then the counts, ALCE citation recall
 * and precision, the export button and the list of sentences that need the reader's attention
 * (each a link to its sentence and card); or an error worded so the reader knows what to do.
 * Runs in: content scripts.
 */
'use strict';
(function (CL) {
  const { t, plural, percent } = CL.i18n;
  // px: narrower than this, a chip would break its words; it then overlaps what it must
  const CHIP_MIN = 120;

  /**
   * The summary's rows: sentences of the same kind left unjudged for the same reason together,
   * every other sentence alone; in the answer's order of each row's first sentence.
   * @template {{kind: string, reason?: string}} T @param {T[]} items @returns {T[][]}
   */
  function groupByReason(items) {
    /** @type {Map<string, T[]>} */
    const rows = new Map();
    items.forEach((item, i) => {
      const key = item.reason ? `${item.kind}\n${item.reason}` : `#${i}`;
      if (!rows.has(key)) rows.set(key, []);
      /** @type {T[]} */ (rows.get(key)).push(item);
    });
    return [...rows.values()];
  }

  class SummaryBar {
    /**
     * @param {ShadowRoot|Element} layer
     * @param {{onExport: () => void, onClose: () => void, onOptions: () => void,
     *   onReadInBrowser?: () => void, onSaveForBatch?: () => void,
     *   attention?: () => {index: number, kind: string, label: string, text: string, reason?: string}[],
     *   jump?: (index: number, from: HTMLElement) => void}} actions  attention: the sentences the
     *   reader should look at; jump: go to one and open its card; onReadInBrowser: the reader
     *   asked to read the sources that turned the companion away through their browser;
     *   onSaveForBatch: save the request body for `citelens audit-batch`
     */
    constructor(layer, actions) {
      this.doc = /** @type {Document} */ (layer.ownerDocument);
      this.actions = actions;
      this.panel = this.doc.createElement('div');
      this.panel.className = 'panel';
      // The live region holds the counts and messages only: the list beside it is read when
      // the reader goes there, not announced whole each time a status line changes.
      this.el = this.doc.createElement('div');
      this.el.className = 'bar';
      this.el.setAttribute('role', 'status');
      this.el.setAttribute('aria-live', 'polite');
      this.list = this.doc.createElement('nav');
      this.list.className = 'attention';
      this.list.setAttribute('aria-label', t('summary_attention_list'));
      this.list.hidden = true;
      this.el.id = 'citelens-summary-bar';
      this.list.id = 'citelens-attention';
      // Where no margin beside the answer holds the panel, it folds to this chip, which the
      // reader opens on demand: the panel must not lie over the words it reports on.
      this.chip = this.doc.createElement('button');
      this.chip.type = 'button';
      this.chip.className = 'chip';
      this.chip.hidden = true;
      this.chip.setAttribute('aria-controls', `${this.el.id} ${this.list.id}`);
      this.chip.addEventListener('click', () => {
        this.unfolded = !this.unfolded;
        if (this.place) this.dock(this.place);
      });
      /** @type {{side: 'left'|'right', collapsed: boolean, left: number, width: number}|null} */
      this.place = null;
      this.unfolded = false;
      this.attentionCount = 0;
      this.panel.append(this.chip, this.el, this.list);
      layer.appendChild(this.panel);
    }

    /** @param {string} text */
    working(text) {
      this.render('', [this.brand(), this.span('', text)], []);
    }

    /**
     * @param {{counts: Record<string, number>, contradicted?: Record<string, number>, recall?: number,
     *   precision?: number, misplaced?: number, uncitedSupported?: number, warning?: string,
     *   note?: string, browserReadable?: string[], readByBrowser?: number,
     *   over?: {statements: number, citations: number, block_cited: number}}} summary
     *   counts, contradicted: the sentences per state and, per state, those a source
     *   contradicts (labels.js tally), so that the parts sum to the sentences;
     *   misplaced, uncitedSupported: the summary line's misplaced_citations and
     *   uncited_but_supported; warning: the results are incomplete; note: something the reader
     *   should know about complete results; browserReadable: the hosts of sources that turned
     *   the companion away and the reader's browser may read (one button offers it);
     *   readByBrowser: sources read through the reader's browser; over: the summary line's
     *   computed_over, what recall and precision were computed over
     */
    done(summary) {
      const parts = [this.brand(), this.span('counts', CL.overlay.countsPhrase(summary.counts, summary.contradicted))];
      if (typeof summary.recall === 'number' && typeof summary.precision === 'number') {
        // ALCE (Gao et al. 2023): recall over sentences, precision over citations.
        parts.push(this.span('metrics', t('summary_metrics', percent(summary.recall), percent(summary.precision))));
        // Inaccessible sources and uncited sentences are left out: "100%" of one sentence of three.
        if (summary.over) parts.push(this.span('basis', CL.overlay.basisPhrase(summary.over)));
      }
      const elsewhere = CL.overlay.elsewhereCountsPhrase(summary.misplaced || 0, summary.uncitedSupported || 0);
      if (elsewhere) parts.push(this.span('elsewhere', elsewhere));
      if (summary.warning) parts.push(this.message(summary.warning));
      if (summary.note) parts.push(this.span('note', summary.note));
      if (summary.readByBrowser) {
        const n = summary.readByBrowser;
        parts.push(this.span('via-browser', plural(n, 'summary_read_by_browser_one', 'summary_read_by_browser_other', n)));
      }
      const buttons = [this.button(t('summary_export'), 'export', this.actions.onExport)];
      if (this.actions.onSaveForBatch) buttons.push(this.button(t('summary_save_batch'), 'save-batch', this.actions.onSaveForBatch));
      const hosts = summary.browserReadable || [];
      if (hosts.length && this.actions.onReadInBrowser) {
        const why = this.span('browser-note', t('summary_browser_note', hosts.join(', ')));
        why.id = 'citelens-browser-note';
        parts.push(why);
        const read = this.button(t('summary_read_in_browser'), 'read-in-browser', this.actions.onReadInBrowser);
        read.setAttribute('aria-describedby', why.id);
        buttons.unshift(read);
      }
      this.render(summary.warning ? 'warning' : '', parts, buttons);
      this.renderAttention();
    }

    /**
     * One link per sentence that needs the reader's attention: it scrolls to the sentence and
     * opens its card. Links, not buttons: they take the reader somewhere on the page. Sentences
     * left unread or unchecked for the same reason (27 in Japanese) are one row with their
     * count, a button that unfolds their links (issue 36 item 6.3).
     */
    renderAttention() {
      const items = this.actions.attention ? this.actions.attention() : [];
      this.attentionCount = items.length;
      this.renderChip();
      this.list.hidden = !items.length;
      if (!items.length) return this.list.replaceChildren();
      const head = this.span('head', t('summary_attention_head', items.length));
      head.id = 'citelens-attention-head';
      this.list.setAttribute('aria-labelledby', head.id);
      this.list.removeAttribute('aria-label');
      const ul = this.doc.createElement('ul');
      for (const row of groupByReason(items)) {
        const li = this.doc.createElement('li');
        if (row.length === 1) li.appendChild(this.attentionLink(row[0]));
        else li.append(...this.attentionGroup(row));
        ul.appendChild(li);
      }
      this.list.replaceChildren(head, ul);
    }

    /** @param {{index: number, kind: string, label: string, text: string}} item */
    attentionLink(item) {
      const link = this.doc.createElement('a');
      // "#" keeps the page's own URL and router untouched: the click is handled here.
      link.href = '#';
      link.dataset.kind = item.kind;
      link.dataset.index = String(item.index);
      const icon = this.span('icon', CL.overlay.KINDS[item.kind].icon);
      icon.setAttribute('aria-hidden', 'true');
      const text = this.span('text', item.text);
      text.dir = 'auto';
      link.append(icon, this.span('what', t('summary_attention_label', item.label)), text);
      // The name said in full: the flex layout that spaces the parts leaves no space in the text.
      link.setAttribute('aria-label', t('summary_attention_item', item.label, item.text));
      link.addEventListener('click', (event) => {
        event.preventDefault();
        if (this.actions.jump) this.actions.jump(item.index, link);
      });
      return link;
    }

    /**
     * "27 sentences not checked: the answer is in Japanese; …": a disclosure button, and the
     * sentences' links beneath it, folded until the reader asks.
     * @param {{index: number, kind: string, label: string, text: string, reason: string}[]} row
     */
    attentionGroup(row) {
      const { kind, reason } = row[0];
      const n = row.length;
      const button = this.doc.createElement('button');
      button.type = 'button';
      button.className = 'group';
      button.dataset.kind = kind;
      const icon = this.span('icon', CL.overlay.KINDS[kind].icon);
      icon.setAttribute('aria-hidden', 'true');
      const words = kind === 'inaccessible'
        ? plural(n, 'attention_group_inaccessible_one', 'attention_group_inaccessible_other', n, reason)
        : plural(n, 'attention_group_not_checked_one', 'attention_group_not_checked_other', n, reason);
      button.append(icon, this.span('what', words));
      const members = this.doc.createElement('ul');
      members.id = `citelens-attention-group-${row[0].index}`;
      members.className = 'members';
      members.hidden = true;
      for (const item of row) {
        const li = this.doc.createElement('li');
        li.appendChild(this.attentionLink(item));
        members.appendChild(li);
      }
      button.setAttribute('aria-controls', members.id);
      button.setAttribute('aria-expanded', 'false');
      button.addEventListener('click', () => {
        members.hidden = !members.hidden;
        button.setAttribute('aria-expanded', String(!members.hidden));
      });
      return [button, members];
    }

    /** @param {string} message @param {{options?: boolean}} [extra] */
    error(message, extra = {}) {
      const buttons = extra.options ? [this.button(t('summary_open_options'), 'options', this.actions.onOptions)] : [];
      this.render('error', [this.brand(), this.message(message)], buttons);
      this.el.setAttribute('role', 'alert');
    }

    /**
     * Where the panel goes (dock.js dockPanel): a column in the margin beside the answer, or,
     * with no margin wide enough, a chip in that margin's bottom corner, unfolded only while
     * the reader wants it (it then lies over the page, as they asked).
     * @param {{side: 'left'|'right', collapsed: boolean, left: number, width: number, shared?: boolean}} place
     *   shared: the card opens in this margin too; the panel keeps to its lower part
     */
    dock(place) {
      this.place = place;
      const folded = place.collapsed && !this.unfolded;
      const style = this.panel.style;
      this.panel.classList.toggle('dock-left', place.side === 'left');
      this.panel.classList.toggle('docked', !place.collapsed);
      this.panel.classList.toggle('shared', !place.collapsed && !!place.shared);
      this.panel.classList.toggle('collapsed', folded);
      this.chip.hidden = !place.collapsed;
      this.chip.setAttribute('aria-expanded', String(!folded));
      this.renderChip();
      for (const prop of ['left', 'right', 'width', 'max-width']) style.removeProperty(prop);
      // Folded, the chip keeps to its margin, its words on two lines if need be.
      if (folded) style.maxWidth = `${Math.floor(Math.max(place.width, CHIP_MIN))}px`;
      if (!place.collapsed) {
        style.left = `${Math.round(place.left)}px`;
        style.right = 'auto';
        style.width = `${Math.floor(place.width)}px`;
      } else if (folded && place.side === 'left') {
        style.left = `${Math.round(place.left)}px`;
        style.right = 'auto';
      } else if (folded) {
        style.left = 'auto';
        style.right = `${Math.round(CL.overlay.viewportRight(this.doc) - place.left)}px`;
      }
    }

    /** The chip's words: what pressing it does, and how many sentences need attention. */
    renderChip() {
      const folded = this.panel.classList.contains('collapsed');
      // Unfolded, the bar beneath says "CiteLens" already.
      const parts = folded ? [this.brand(), this.span('what', t('summary_expand'))] : [this.span('what', t('summary_collapse'))];
      if (folded && this.attentionCount) {
        parts.push(this.span('count', plural(this.attentionCount, 'summary_chip_attention_one', 'summary_chip_attention_other', this.attentionCount)));
      }
      this.chip.replaceChildren(...parts);
    }

    /** @param {boolean} busy */
    exporting(busy) {
      const button = /** @type {HTMLButtonElement|null} */ (this.el.querySelector('[data-action="export"]'));
      if (button) {
        button.disabled = busy;
        button.textContent = busy ? t('summary_exporting') : t('summary_export');
      }
    }

    /** While the browser reads: the button waits, and says for what. @param {string|null} waiting */
    readingInBrowser(waiting) {
      const button = /** @type {HTMLButtonElement|null} */ (this.el.querySelector('[data-action="read-in-browser"]'));
      if (button) {
        button.disabled = waiting !== null;
        button.textContent = waiting ?? t('summary_read_in_browser');
      }
    }

    /** A line about what the buttons did ("Saved …", "Export failed: …"). @param {string} text */
    status(text) {
      let line = this.el.querySelector('.status');
      if (!line) {
        line = this.span('status', '');
        this.el.insertBefore(line, this.el.querySelector('button'));
      }
      line.textContent = text;
    }

    /** @param {string} kind @param {Element[]} parts @param {HTMLButtonElement[]} buttons */
    render(kind, parts, buttons) {
      this.el.className = kind ? `bar ${kind}` : 'bar';
      this.panel.classList.remove('error', 'warning');
      if (kind) this.panel.classList.add(kind);
      this.list.hidden = true;
      this.attentionCount = 0;
      this.renderChip();
      this.el.setAttribute('role', 'status');
      const close = this.button('×', 'close', this.actions.onClose);
      close.setAttribute('aria-label', t('summary_close'));
      this.el.replaceChildren(...parts, ...buttons, close);
    }

    brand() {
      return this.span('brand', 'CiteLens');
    }

    /** @param {string} className @param {string} text */
    span(className, text) {
      const el = this.doc.createElement('span');
      el.className = className;
      el.textContent = text;
      return el;
    }

    /** Text with `backticked` commands shown as code, built without HTML parsing. @param {string} text */
    message(text) {
      const el = this.span('message', '');
      text.split('`').forEach((piece, i) => {
        if (!piece) return;
        if (i % 2) {
          const code = this.doc.createElement('code');
          code.textContent = piece;
          el.appendChild(code);
        } else {
          el.appendChild(this.doc.createTextNode(piece));
        }
      });
      return el;
    }

    /** @param {string} label @param {string} action @param {() => void} onClick */
    button(label, action, onClick) {
      const el = this.doc.createElement('button');
      el.type = 'button';
      el.textContent = label;
      el.dataset.action = action;
      el.addEventListener('click', onClick);
      return el;
    }
  }

  CL.overlay = Object.assign(CL.overlay || {}, { SummaryBar, groupByReason });
})((globalThis.CiteLens ??= {}));
