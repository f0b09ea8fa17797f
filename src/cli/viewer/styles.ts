/** The page's stylesheet (inline; the CSP allows exactly this text by its hash). */
export const VIEWER_CSS = `
:root { --bg:#fff; --fg:#1d232a; --muted:#6a737d; --line:#e3e6ea; --sel:#e8f0fe; --ok:#1a7f37; --err:#cf222e; --unset:#8c959f;
  --agent:#8250df; --llm:#0969da; --tool:#bf8700; --function:#57606a; --mark:#6e7781; --other:#3b8eea;\
 font: 13px/1.4 system-ui, sans-serif; }
@media (prefers-color-scheme: dark) { :root { --bg:#0d1117; --fg:#e6edf3; --muted:#8b949e; --line:#30363d; --sel:#1f2d3d; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); }
#relaytrace-viewer { display: flex; flex-direction: column; height: 100vh; }
.top { display: flex; justify-content: space-between; align-items: center; gap: 16px; padding: 10px 16px;\
 border-bottom: 1px solid var(--line); }
.top h1 { font-size: 16px; margin: 0; }
.sources { color: var(--muted); font-size: 12px; }
.stats { display: flex; gap: 18px; }
.stat { display: flex; flex-direction: column; align-items: flex-end; }
.stat-value { font-weight: 600; font-size: 15px; font-variant-numeric: tabular-nums; }
.stat-label { color: var(--muted); font-size: 11px; }
.notes { margin: 0; padding: 6px 32px; background: #fff8c5; color: #4d2d00; font-size: 12px; }
.tabs { display: flex; gap: 4px; padding: 6px 16px 0; border-bottom: 1px solid var(--line); }
.tabs button { border: 1px solid transparent; border-bottom: none; background: none; color: var(--fg); padding: 6px 12px;\
 cursor: pointer; border-radius: 6px 6px 0 0; font: inherit; }
.tabs button[aria-selected="true"] { border-color: var(--line); background: var(--sel); font-weight: 600; }
.pane { flex: 1; min-height: 0; display: flex; flex-direction: column; }
.pane[hidden] { display: none; }
.toolbar { display: flex; gap: 10px; align-items: center; padding: 8px 16px; border-bottom: 1px solid var(--line); }
.toolbar input[type=search] { width: 280px; padding: 4px 8px; font: inherit; }
.shown { color: var(--muted); margin-left: auto; }
.split { flex: 1; min-height: 0; display: grid; grid-template-columns: minmax(0, 3fr) minmax(320px, 2fr); }
.waterfall { min-height: 0; display: flex; flex-direction: column; border-right: 1px solid var(--line); }
.scroller { flex: 1; overflow-y: auto; overflow-x: hidden; outline: none; }
.spacer { position: relative; }
.layer { position: absolute; inset: 0; }
.row, .trace-row { position: absolute; left: 0; right: 0; height: 26px; display: grid;\
 grid-template-columns: minmax(0, 2fr) minmax(0, 3fr); border-bottom: 1px solid var(--line); cursor: default; }
.trace-row .cell.name { padding-left: 6px; }
.trace-row { background: color-mix(in srgb, var(--line) 45%, var(--bg)); font-size: 12px; }
.row:hover { background: color-mix(in srgb, var(--sel) 60%, var(--bg)); }
.row.selected { background: var(--sel); }
.cell { position: relative; overflow: hidden; white-space: nowrap; text-overflow: ellipsis; display: flex; align-items: center; gap: 6px; }
.cell.name { padding-right: 6px; }
.toggle { width: 12px; color: var(--muted); cursor: pointer; flex: none; }
.span-name { overflow: hidden; text-overflow: ellipsis; }
.kind { font-size: 10px; text-transform: uppercase; padding: 0 4px; border-radius: 3px; color: #fff; background: var(--other); flex: none; }
.kind[data-kind=agent], .bar[data-kind=agent] { background: var(--agent); }
.kind[data-kind=llm], .bar[data-kind=llm] { background: var(--llm); }
.kind[data-kind=tool], .bar[data-kind=tool] { background: var(--tool); }
.kind[data-kind=function], .bar[data-kind=function] { background: var(--function); }
.kind[data-kind=mark], .bar[data-kind=mark] { background: var(--mark); }
.status { font-size: 10px; font-weight: 600; flex: none; }
.status[data-status=OK] { color: var(--ok); }
.status[data-status=ERROR] { color: var(--err); }
.status[data-status=UNSET] { color: var(--unset); }
.badge { font-size: 10px; border: 1px solid var(--muted); color: var(--muted); border-radius: 8px; padding: 0 5px; flex: none; }
.timeline { margin: 0 10px; }
.bar { position: absolute; top: 7px; height: 12px; border-radius: 2px; background: var(--other); min-width: 2px; }
.bar[data-status=ERROR] { outline: 2px solid var(--err); outline-offset: 0; }
.gap { position: absolute; top: 12px; height: 0; border-top: 2px dashed var(--muted); }
.duration { position: absolute; top: 5px; padding: 0 4px; font-size: 11px; color: var(--muted); }
.duration.inside { color: #fff; }
.mark { position: absolute; top: 6px; width: 9px; height: 9px; margin-left: -4px; transform: rotate(45deg);\
 background: var(--fg); border: 1px solid var(--fg); }
.mark.pending { background: var(--bg); }
.axis .tick { position: absolute; top: 6px; font-size: 10px; color: var(--muted); border-left: 1px solid var(--muted); padding-left: 2px; }
.detail { overflow: auto; padding: 10px 16px; min-height: 0; }
.detail h2 { font-size: 15px; margin: 4px 0 8px; word-break: break-all; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 0 0 8px; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; word-break: break-all; font-variant-numeric: tabular-nums; }
.block h3 { font-size: 12px; text-transform: uppercase; color: var(--muted); margin: 14px 0 4px; }
pre.json { margin: 0; padding: 6px 8px; background: color-mix(in srgb, var(--line) 40%, var(--bg)); border-radius: 4px;\
 white-space: pre-wrap; word-break: break-word; font: 12px/1.4 ui-monospace, monospace; max-height: 360px; overflow: auto; }
.error { color: var(--err); font-weight: 600; }
.link { background: none; border: none; padding: 0; color: var(--llm); cursor: pointer; font: inherit; text-decoration: underline; }
.messages, .steps { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 6px; }
.message, .step { border: 1px solid var(--line); border-radius: 6px; padding: 6px 8px; }
.message[data-role=system] { border-left: 3px solid var(--function); }
.message[data-role=user], .step[data-source=user] { border-left: 3px solid var(--ok); }
.message[data-role=assistant], .step[data-source=agent] { border-left: 3px solid var(--llm); }
.message[data-role=tool], .step[data-source=system] { border-left: 3px solid var(--tool); }
.role, .source { font-size: 11px; text-transform: uppercase; color: var(--muted); font-weight: 600; }
.text { white-space: pre-wrap; word-break: break-word; margin: 2px 0; }
.tool-call { margin: 4px 0; }
.call-name { font-family: ui-monospace, monospace; font-size: 12px; }
.observation { margin: 4px 0 0 14px; }
.observation.missing { color: var(--muted); }
.traj-pane { overflow: auto; padding: 12px 16px; display: block; }
.trajectory { margin-bottom: 16px; }
.traj-head { margin-bottom: 6px; }
.step-head { display: flex; gap: 8px; align-items: baseline; }
.step-no { font-weight: 600; }
.model, .time { color: var(--muted); font-size: 11px; }
.metrics { color: var(--muted); font-size: 12px; margin-top: 2px; }
.metrics.final { font-weight: 600; }
.subagent { margin: 8px 0 8px 16px; border-left: 2px solid var(--agent); padding-left: 8px; }
.hint { color: var(--muted); }
.diff-pane { overflow-y: auto; padding: 12px 16px; }
.diff-summary { font-weight: 600; }
.diff-row { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
.diff-titles { color: var(--muted); font-size: 12px; position: sticky; top: -12px; background: var(--bg); padding: 4px 0; }
.diff-step { border: 1px solid var(--line); border-radius: 6px; padding: 6px 10px; margin: 8px 0; }
.diff-step.changed { border-color: var(--err); border-left-width: 4px; }
.diff-step h3 { margin: 2px 0 6px; font-size: 13px; }
.diff-side { min-width: 0; }
.diff-changes { margin: 6px 0 0; padding-left: 18px; }
.diff-values { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
.badge.changed { background: var(--err); color: #fff; }
.badge.score { border-color: var(--ok); color: inherit; }
ul.evaluations { list-style: none; padding: 0; margin: 4px 0; }
ul.evaluations li { margin: 2px 0; }
ul.evaluations .explanation { color: var(--muted); white-space: pre-wrap; }
`;
