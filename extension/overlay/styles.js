/*
 * The overlay's own styles, inside its shadow root so that neither side's CSS leaks into the
 * other. A string, because content scripts cannot read extension files without exposing them
 * to every page as web-accessible resources.
 *
 * Runs in: content scripts.
 */
'use strict';
(function (CL) {
  CL.overlay = Object.assign(CL.overlay || {}, {
    STYLES: `
:host { all: initial; }
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
.badge .elsewhere { font-weight: 500; margin-left: 2px; padding-left: 6px; border-left: 1px solid currentColor; }
.badge .elsewhere.joined { margin-left: 0; padding-left: 0; border-left: 0; }
.badge.stacked { flex-wrap: wrap; height: auto; min-height: 22px; padding-top: 3px; padding-bottom: 3px; row-gap: 2px; border-radius: 9px; }
.badge.stacked .elsewhere { flex-basis: 100%; margin-left: 0; padding-left: 0; border-left: 0; white-space: normal; text-align: left; line-height: 1.25; }
.k-contradicted { border-width: 2px; }
.k-complete_support { background: #dcfce7; border-color: #15803d; color: #14532d; }
.k-partial_support { background: #fef9c3; border-color: #a16207; color: #713f12; }
.k-no_support { background: #fee2e2; border-color: #b91c1c; color: #7f1d1d; }
.k-contradicted { background: #fae8ff; border-color: #a21caf; color: #701a75; }
.k-inaccessible { background: #f1f5f9; border-color: #475569; color: #1e293b; border-style: dashed; }
.k-no_citation { background: #f8fafc; border-color: #64748b; color: #334155; border-style: dotted; }
.card { position: fixed; width: min(420px, calc(100vw - 16px)); max-height: min(60vh, 480px); overflow: auto;
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
.card .elsewhere-head { margin: 10px 0 0; font-weight: 600; }
.card .refutes blockquote { border-left-color: #a21caf; background: #fdf4ff; }
.card .found blockquote { border-left-color: #15803d; background: #f0fdf4; }
.card ul { margin: 4px 0 0; padding-left: 18px; }
.card .close { position: absolute; top: 6px; right: 8px; border: 0; background: none; font-size: 16px; cursor: pointer; color: #475569; }
::highlight(citelens-evidence) { background-color: rgb(59 130 246 / 0.3); }
.bar { position: fixed; right: 16px; bottom: 16px; max-width: min(620px, calc(100vw - 32px)); display: flex;
  flex-wrap: wrap; gap: 6px 12px; align-items: center; padding: 10px 40px 10px 12px; border-radius: 12px;
  background: #0f172a; color: #f8fafc; box-shadow: 0 8px 24px rgb(0 0 0 / 0.3); }
.bar .brand { font-weight: 700; }
.bar .note, .bar .status, .bar .elsewhere { flex-basis: 100%; color: #cbd5e1; }
.bar .message { flex-basis: 100%; }
.bar button[data-action="close"] { position: absolute; top: 8px; right: 8px; border: 0; background: none; font-size: 16px; padding: 0 6px; }
.bar .metrics { color: #cbd5e1; }
.bar.error { background: #7f1d1d; }
.bar.warning { background: #78350f; }
.bar button { font: inherit; border-radius: 8px; border: 1px solid #94a3b8; background: #1e293b; color: #f8fafc;
  padding: 4px 10px; cursor: pointer; }
.bar button:disabled { opacity: 0.5; cursor: default; }
.bar button:focus-visible { outline: 3px solid #93c5fd; outline-offset: 2px; }
.bar code { background: rgb(255 255 255 / 0.12); padding: 0 4px; border-radius: 4px; }
@media (prefers-reduced-motion: reduce) { .badge { transition: none; } }
`,
  });
})((globalThis.CiteLens ??= {}));
