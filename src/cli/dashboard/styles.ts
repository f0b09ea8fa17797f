/** The dashboard's stylesheet, on top of the viewer's (served from the dashboard's own origin). */
export const DASHBOARD_CSS = `
#relaytrace-dashboard { display: flex; flex-direction: column; height: 100vh; }
.top h1 a.home { color: inherit; text-decoration: none; }
.dash-main { flex: 1; min-height: 0; display: flex; flex-direction: column; }
.dash-main > .pane { flex: 1; min-height: 0; }
.runs-toolbar { flex-wrap: wrap; }
.runs-toolbar input[type=search] { width: 260px; }
.runs-toolbar select { max-width: 180px; font: inherit; }
.compare-button { font: inherit; padding: 3px 12px; }
.picked { font-size: 12px; }
.runs-table { flex: 1; min-height: 0; display: flex; flex-direction: column; }
.run-row { display: grid; height: 30px; align-items: center; border-bottom: 1px solid var(--line);\
 grid-template-columns: 28px 150px minmax(140px, 2fr) minmax(90px, 1fr) minmax(70px, 1fr) minmax(70px, 1fr)\
 84px 76px 44px 48px 70px 70px minmax(90px, 1.4fr); }
.run-head { font-size: 11px; text-transform: uppercase; color: var(--muted); background: color-mix(in srgb, var(--line) 45%, var(--bg)); }
.runs-scroller .run-row { position: absolute; left: 0; right: 0; }
.run-row:not(.run-head):hover { background: color-mix(in srgb, var(--sel) 60%, var(--bg)); }
.run-row.picked { background: var(--sel); }
.run-row .cell { padding: 0 6px; }
.runs-empty { padding: 12px 16px; }
.col-sort { background: none; border: none; padding: 0; font: inherit; color: inherit; text-transform: inherit; cursor: pointer;\
 text-decoration: underline dotted; }
a { color: var(--llm); }
.run-name { overflow: hidden; text-overflow: ellipsis; font-weight: 600; }
.session-link { overflow: hidden; text-overflow: ellipsis; font-family: ui-monospace, monospace; font-size: 12px; }
.tag { font-size: 11px; border-radius: 8px; padding: 0 6px; background: color-mix(in srgb, var(--agent) 15%, var(--bg)); }
.run-status { font-size: 12px; font-weight: 600; }
.run-status[data-status=ok] { color: var(--ok); }
.run-status[data-status=error] { color: var(--err); }
.run-status[data-status=suspended] { color: var(--tool); }
.run-status[data-status=running] { color: var(--llm); }
.time { font-variant-numeric: tabular-nums; color: var(--muted); font-size: 12px; }
.view-head { padding: 10px 16px 4px; border-bottom: 1px solid var(--line); }
.view-head h2 { font-size: 16px; margin: 0 0 6px; word-break: break-all; }
.run-facts { grid-template-columns: max-content 1fr max-content 1fr max-content 1fr; }
.run-facts dd { word-break: normal; overflow-wrap: anywhere; }
.compare-run .run-facts { grid-template-columns: max-content 1fr max-content 1fr; }
.badge { white-space: nowrap; }
.run-files { margin: 4px 0; }
.trace-view { display: flex; flex-direction: column; }
.trace-view > .pane { flex: 1; min-height: 0; }
.session-view, .compare-view { overflow-y: auto; display: block; }
.session-runs { list-style: none; margin: 0; padding: 10px 16px; display: flex; flex-direction: column; gap: 8px; }
.session-run { border: 1px solid var(--line); border-radius: 6px; padding: 6px 10px; }
.session-run[data-status=error] { border-left: 4px solid var(--err); }
.session-run-head { display: flex; gap: 10px; align-items: baseline; flex-wrap: wrap; }
.turn { display: grid; grid-template-columns: 36px 1fr; gap: 6px; margin-top: 4px; }
.turn-in .text { color: var(--muted); }
.compare-view .diff-summary, .compare-view .diff-step { margin-left: 16px; margin-right: 16px; }
.compare-run h3 { margin: 4px 0; font-size: 14px; }
.diff-step.differs { border-color: var(--err); border-left-width: 4px; }
.change { margin: 8px 0 4px; }
.change-title { font-weight: 600; font-size: 12px; }
.diff-value { min-width: 0; }
.diff-mark[data-change=changed] { background: color-mix(in srgb, #d4a72c 45%, var(--bg)); border-radius: 2px; outline: 1px solid #d4a72c; }
.diff-mark[data-change=added] { background: color-mix(in srgb, var(--ok) 25%, var(--bg)); }
.diff-mark[data-change=removed] { background: color-mix(in srgb, var(--err) 22%, var(--bg)); text-decoration: line-through; }
.step-text { font-size: 12px; }
`;
