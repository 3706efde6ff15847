/*
 * The overlay's own styles, inside its shadow root so that neither side's CSS leaks into the
 * other. A string, because content scripts cannot read extension files without exposing them
 * to every page as web-accessible resources.
 *
 * Runs in: content scripts.
 */
'use strict';
(function (CL) {
  /**
   * Each verdict's colours, as data so that a test can check them (overlay-contrast.test.js):
   * the text on its own fill meets WCAG AA (4.5:1), and on a light or a dark page either the
   * fill or the border stands out (3:1, WCAG 1.4.11). Colour is never the only signal: each
   * kind has its icon and word (labels.js), and the last two a border style of their own.
   */
  const PALETTE = Object.freeze({
    complete_support: { background: '#dcfce7', border: '#15803d', text: '#14532d' },
    // Likely supported (complete support read with low confidence): teal, never the green, and a
    // double border of its own.
    likely_support: { background: '#cffafe', border: '#0e7490', text: '#164e63', style: 'double' },
    partial_support: { background: '#fef9c3', border: '#a16207', text: '#713f12' },
    no_support: { background: '#fee2e2', border: '#b91c1c', text: '#7f1d1d' },
    contradicted: { background: '#fae8ff', border: '#a21caf', text: '#701a75' },
    inaccessible: { background: '#f1f5f9', border: '#475569', text: '#1e293b', style: 'dashed' },
    not_checked: { background: '#f8fafc', border: '#475569', text: '#1e293b', style: 'dashed' },
    no_citation: { background: '#f8fafc', border: '#64748b', text: '#334155', style: 'dotted' },
  });

  CL.overlay = Object.assign(CL.overlay || {}, {
    PALETTE,
    STYLES: `
:host { all: initial; }
/* The overlay's words are English, left to right, on any page: 'all' does not reset direction,
   so a right-to-left page's would come in. Text from the page keeps its own (dir="auto"). */
.layer { direction: ltr; unicode-bidi: isolate; }
* { box-sizing: border-box; }
.layer { position: fixed; inset: 0 auto auto 0; width: 0; height: 0; z-index: 2147483647;
  font: 13px/1.35 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; color: #111827; }
.badge { position: fixed; display: inline-flex; align-items: center; gap: 4px; height: 22px; padding: 0 8px 0 6px;
  border-radius: 11px; border: 1.5px solid; font-weight: 600; font-size: 12px; line-height: 1; font-family: inherit; cursor: pointer;
  white-space: nowrap; box-shadow: 0 1px 3px rgb(0 0 0 / 0.18); transition: opacity 120ms; }
.badge[hidden] { display: none; }
.badge:focus-visible { outline: 3px solid #2563eb; outline-offset: 2px; }
.badge .icon { font-size: 13px; width: 14px; text-align: center; }
.badge .num { font-weight: 500; opacity: 0.8; }
/* Short of room a badge drops the page's marker, never cuts it (badges.js fit). */
.badge.no-num .num { display: none; }
.badge .elsewhere { font-weight: 500; margin-left: 2px; padding-left: 6px; border-left: 1px solid currentColor; }
.badge .elsewhere.joined { margin-left: 0; padding-left: 0; border-left: 0; }
.badge.compact { width: 20px; padding: 0; justify-content: center; gap: 0; border-radius: 10px; }
.badge.compact > :not(.icon) { display: none; }
.badge.stacked { flex-wrap: wrap; height: auto; min-height: 22px; padding-top: 3px; padding-bottom: 3px; row-gap: 2px; border-radius: 9px; }
.badge.stacked .elsewhere { flex-basis: 100%; margin-left: 0; padding-left: 0; border-left: 0; white-space: normal; text-align: left; line-height: 1.25; }
.k-contradicted { border-width: 2px; }
.k-likely_support { border-width: 3px; }
${Object.entries(PALETTE).map(([kind, c]) => `.k-${kind} { background: ${c.background}; border-color: ${c.border}; color: ${c.text};${c.style ? ` border-style: ${c.style};` : ''} }`).join('\n')}
.card { position: fixed; z-index: 1; width: min(420px, calc(100vw - 16px)); max-height: min(60vh, 480px); overflow: auto;
  background: #fff; border: 1px solid #cbd5e1; border-radius: 10px; padding: 12px 14px;
  box-shadow: 0 10px 30px rgb(15 23 42 / 0.25); }
.card[hidden] { display: none; }
.card h2 { margin: 0 0 6px; font-size: 14px; display: flex; gap: 6px; align-items: center; }
.card .statement { margin: 0 0 10px; color: #475569; font-style: italic; }
.card .source { border-top: 1px solid #e2e8f0; padding-top: 8px; margin-top: 8px; }
.card .source-head { display: flex; gap: 6px; align-items: baseline; font-weight: 600; }
.card .source-head > span:first-child { white-space: nowrap; }
.card .source-host { color: #475569; font-weight: 400; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.card blockquote { margin: 6px 0; padding: 6px 10px; border-left: 3px solid #3b82f6; background: #eff6ff; }
.card a { color: #1d4ed8; }
.card .note { margin: 6px 0 0; color: #7f1d1d; }
.card .note.elsewhere { color: #1e3a8a; font-weight: 600; }
.card .note.cited-by { color: #334155; }
.card .note.likely { color: #164e63; }
.card .also-unread { color: #475569; }
.card .reasons-head { margin: 10px 0 0; font-weight: 600; }
.card .reasons ul { margin: 2px 0 0; padding-left: 18px; }
.card .elsewhere-head { margin: 10px 0 0; font-weight: 600; }
.card .judged-in { margin: 10px 0 0; font-size: 12px; color: #475569; }
.card .refutes blockquote { border-left-color: #a21caf; background: #fdf4ff; }
.card .found blockquote { border-left-color: #15803d; background: #f0fdf4; }
.card .quote-label { margin: 8px 0 0; font-weight: 600; }
.card .says-otherwise blockquote { border-left-color: #a21caf; background: #fdf4ff; }
.card ul { margin: 4px 0 0; padding-left: 18px; }
.card .close { position: absolute; top: 6px; right: 8px; border: 0; background: none; font-size: 16px; cursor: pointer; color: #475569; }
::highlight(citelens-evidence) { background-color: rgb(59 130 246 / 0.3); }
.panel { position: fixed; right: 16px; bottom: 16px; max-width: min(620px, calc(100vw - 32px)); border-radius: 12px;
  max-height: max(45vh, 120px); overflow: auto; background: #0f172a; color: #f8fafc; box-shadow: 0 8px 24px rgb(0 0 0 / 0.3); }
.panel.dock-left { right: auto; left: 16px; }
/* Docked in a margin beside the answer (dock.js): as tall as the window allows, as wide as the margin. */
.panel.docked { max-width: none; max-height: calc(100vh - 32px); }
/* Sharing its margin with the card (dock.js dockBeside): the lower part, the card above it. */
.panel.docked.shared { max-height: 45vh; }
.panel .chip { display: flex; flex-wrap: wrap; gap: 2px 8px; align-items: baseline; width: 100%; border: 0; border-radius: 12px; background: none; color: inherit;
  font: inherit; padding: 8px 12px; cursor: pointer; text-align: left; }
.panel .chip[hidden] { display: none; }
.panel .chip:focus-visible { outline: 3px solid #93c5fd; outline-offset: 2px; }
.panel .chip .what { text-decoration: underline; }
.panel .chip .count { color: #fde68a; font-weight: 600; }
.panel:not(.collapsed) .chip { border-bottom: 1px solid #334155; border-radius: 12px 12px 0 0; }
/* Folded: the chip alone shows; the status line stays in the page for screen readers. */
.panel.collapsed .attention, .panel.collapsed .bar button { display: none; }
.panel.collapsed .bar { position: absolute; width: 1px; height: 1px; padding: 0; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
.panel.error { background: #7f1d1d; }
.panel.warning { background: #78350f; }
.bar { position: relative; display: flex;
  flex-wrap: wrap; gap: 6px 12px; align-items: center; padding: 10px 40px 10px 12px; }
.attention { border-top: 1px solid #334155; padding: 8px 12px 10px; }
.attention[hidden] { display: none; }
.attention .head { display: block; font-weight: 700; margin-bottom: 4px; }
.attention ul { list-style: none; margin: 0; padding: 0; }
.attention li + li { margin-top: 2px; }
.attention a { display: grid; grid-template-columns: 14px minmax(0, 1fr); column-gap: 6px; color: #f8fafc; text-decoration: none;
  padding: 2px 4px; border-radius: 6px; }
.attention a:hover .what, .attention a:focus-visible .what { text-decoration: underline; }
.attention a:focus-visible { outline: 3px solid #93c5fd; outline-offset: 1px; }
.attention button.group { display: flex; gap: 6px; width: 100%; border: 0; background: none; color: #f8fafc; font: inherit; text-align: left;
  padding: 2px 4px; border-radius: 6px; cursor: pointer; }
.attention button.group .what { white-space: normal; }
.attention button.group::after { content: "▸"; margin-left: auto; color: #bfdbfe; }
.attention button.group[aria-expanded="true"]::after { content: "▾"; }
.attention button.group:hover .what, .attention button.group:focus-visible .what { text-decoration: underline; }
.attention button.group:focus-visible { outline: 3px solid #93c5fd; outline-offset: 1px; }
.attention ul.members { padding-left: 20px; margin-top: 2px; }
.attention ul.members[hidden] { display: none; }
.attention .icon { width: 14px; text-align: center; flex: none; }
.attention .what { font-weight: 600; color: #bfdbfe; }
.attention .text { grid-column: 2; color: #cbd5e1; overflow-wrap: break-word; }
.bar .brand { font-weight: 700; }
.bar .note, .bar .status, .bar .elsewhere { flex-basis: 100%; color: #cbd5e1; }
.bar .message { flex-basis: 100%; }
.bar button[data-action="close"] { position: absolute; top: 8px; right: 8px; border: 0; background: none; font-size: 16px; padding: 0 6px; }
.bar .metrics { color: #cbd5e1; }
.bar .basis { flex-basis: 100%; color: #cbd5e1; }
.bar button { font: inherit; border-radius: 8px; border: 1px solid #94a3b8; background: #1e293b; color: #f8fafc;
  padding: 4px 10px; cursor: pointer; }
.bar button:disabled { opacity: 0.5; cursor: default; }
.bar button:focus-visible { outline: 3px solid #93c5fd; outline-offset: 2px; }
.bar code { background: rgb(255 255 255 / 0.12); padding: 0 4px; border-radius: 4px; }
@media (prefers-reduced-motion: reduce) { .badge { transition: none; } }
`,
  });
})((globalThis.CiteLens ??= {}));
