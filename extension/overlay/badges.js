/*
 * One badge per sentence: a real <button> with an accessible name, icon + word + colour, kept in
 * a gutter beside the answer (right, or left when the engine uses the right) at the height of
 * the sentence's last line, where its citation marker stood. Runs in: content scripts; knows rectangles, not how they were found.
 */
'use strict';
(function (CL) {
  const GAP = 10; // px between the answer's right edge and the badges
  const MARGIN = 8; // px kept free at the viewport's edges
  const STACK_GAP = 3;
  // px below which a stacked badge would be a column of single words: past it, it overlaps instead
  const MIN_STACKED_WIDTH = 120;

  class Badges {
    /**
     * @param {ShadowRoot|Element} layer
     * @param {{enter: (i: number) => void, leave: (i: number) => void, focus: (i: number) => void,
     *   blur: (i: number, to: EventTarget|null) => void, click: (i: number) => void}} on
     */
    constructor(layer, on) {
      this.layer = layer;
      this.doc = /** @type {Document} */ (layer.ownerDocument);
      this.on = on;
      /** @type {Map<number, HTMLButtonElement>} */
      this.buttons = new Map();
    }

    /**
     * @param {number} index
     * @param {{kind: string, judgment: string, supportingSources: number[],
     *   elsewhere?: {cited: string[], found: {label: string}[]}}} view
     */
    upsert(index, view) {
      let button = this.buttons.get(index);
      if (!button) {
        button = this.doc.createElement('button');
        button.type = 'button';
        button.dataset.index = String(index);
        button.addEventListener('mouseenter', () => this.on.enter(index));
        button.addEventListener('mouseleave', () => this.on.leave(index));
        button.addEventListener('focus', () => this.on.focus(index));
        button.addEventListener('blur', (event) => this.on.blur(index, event.relatedTarget));
        button.addEventListener('click', () => this.on.click(index));
        this.buttons.set(index, button);
        this.insertInOrder(index, button);
      }
      const kind = CL.overlay.KINDS[view.kind];
      button.className = `badge k-${view.kind}`;
      button.dataset.kind = view.kind;
      button.dataset.judgment = view.judgment;
      const elsewhere = view.elsewhere && view.elsewhere.found.length ? view.elsewhere : null;
      button.setAttribute(
        'aria-label',
        elsewhere
          ? CL.overlay.ariaLabelElsewhere(view.kind, view.supportingSources, elsewhere)
          : CL.overlay.ariaLabel(view.kind, view.supportingSources),
      );
      button.classList.toggle('found-elsewhere', !!elsewhere);
      button.setAttribute('aria-haspopup', 'dialog');
      const icon = this.doc.createElement('span');
      icon.className = 'icon';
      icon.setAttribute('aria-hidden', 'true');
      icon.textContent = kind.icon;
      const word = this.doc.createElement('span');
      word.textContent = kind.word;
      const parts = [icon, word];
      if (view.supportingSources.length) {
        const num = this.doc.createElement('span');
        num.className = 'num';
        num.textContent = view.supportingSources.join(',');
        parts.push(num);
      }
      if (elsewhere) {
        // Inside the button, so the note travels and stacks with its badge.
        const note = this.doc.createElement('span');
        // "? No citation — found in [2]": the badge's word already says the first half.
        const uncited = view.kind === 'no_citation';
        note.className = uncited ? 'elsewhere joined' : 'elsewhere';
        note.textContent = uncited ? `— ${CL.overlay.foundInPhrase(elsewhere)}` : CL.overlay.elsewherePhrase(elsewhere);
        parts.push(note);
      }
      button.replaceChildren(...parts);
      return button;
    }

    /** Sentence order is tab order, whatever order the stream delivered them in. */
    insertInOrder(/** @type {number} */ index, /** @type {HTMLButtonElement} */ button) {
      const after = [...this.buttons.entries()].filter(([i]) => i > index).sort((a, b) => a[0] - b[0])[0];
      const before = after ? after[1] : this.layer.querySelector('.card');
      this.layer.insertBefore(button, before && before.parentNode === this.layer ? before : null);
    }

    /** @param {number} index */
    remove(index) {
      const button = this.buttons.get(index);
      if (button) button.remove();
      this.buttons.delete(index);
    }

    /**
     * Places every badge. `lines` gives, per sentence, the rectangle of its last line and the
     * clip of its scrolling ancestors; sentences out of view hide their badge.
     * @param {Map<number, {line: DOMRect|null, clip: {top: number, bottom: number}}>} lines
     * @param {{side: 'left'|'right', edge: number}} gutter  which side of the answer, and that
     *   edge of the answer in viewport pixels
     */
    layout(lines, gutter) {
      const view = /** @type {Window} */ (this.doc.defaultView);
      const placed = [];
      for (const [index, button] of this.buttons) {
        const entry = lines.get(index);
        const line = entry && entry.line;
        const visible =
          !!line && line.bottom > entry.clip.top && line.top < entry.clip.bottom && line.bottom > 0 && line.top < view.innerHeight;
        button.hidden = !visible;
        if (visible) placed.push({ button, top: line.top + (line.height - 22) / 2 });
      }
      placed.sort((a, b) => a.top - b.top);
      let floor = -Infinity;
      for (const { button, top } of placed) {
        this.fit(button, gutter.side === 'right' ? view.innerWidth - MARGIN - gutter.edge - GAP : gutter.edge - GAP - MARGIN);
        const width = button.offsetWidth || 100;
        let left = gutter.side === 'right' ? gutter.edge + GAP : gutter.edge - GAP - width;
        left = Math.max(MARGIN, Math.min(left, view.innerWidth - width - MARGIN));
        const y = Math.max(top, floor + STACK_GAP);
        button.style.left = `${Math.round(left)}px`;
        button.style.top = `${Math.round(y)}px`;
        floor = y + (button.offsetHeight || 22);
      }
    }

    /**
     * A badge with a "found in" note that is wider than the gutter puts the note on lines of
     * its own beneath the verdict, rather than be pushed over the answer's words.
     * @param {HTMLButtonElement} button @param {number} room  px free beside the answer
     */
    fit(button, room) {
      if (!button.querySelector('.elsewhere')) return;
      button.classList.remove('stacked');
      button.style.maxWidth = '';
      if (button.offsetWidth > room) {
        button.classList.add('stacked');
        button.style.maxWidth = `${Math.max(room, MIN_STACKED_WIDTH)}px`;
      }
    }

    clear() {
      for (const index of [...this.buttons.keys()]) this.remove(index);
    }
  }

  CL.overlay = Object.assign(CL.overlay || {}, { Badges });
})((globalThis.CiteLens ??= {}));
