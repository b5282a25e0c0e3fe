/**
 * The console's one stylesheet, served from the worker itself (the CSP allows styles from
 * 'self' only, nothing from a CDN). Light and dark follow `prefers-color-scheme`; tables
 * scroll sideways on a phone instead of squeezing their columns.
 */
export const CONSOLE_CSS = `
:root { color-scheme: light dark; --bg: #fbfbfa; --fg: #1c1d1f; --muted: #5d6168; --line: #d9dadc;
  --panel: #ffffff; --accent: #1f5fbf; --ok: #1a7f37; --info: #1f5fbf; --warn: #9a6700;
  --bad: #c4262e; --esc: #7a3fb8; --idle: #6e7781; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #111316; --fg: #e6e7e9; --muted: #a0a5ad; --line: #30343a; --panel: #181b20;
    --accent: #6ea8ff; --ok: #4ac26b; --info: #6ea8ff; --warn: #d4a72c; --bad: #ff6b6b;
    --esc: #c297ff; --idle: #8b949e; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
a { color: var(--accent); }
header.top { display: flex; flex-wrap: wrap; gap: .5rem 1.25rem; align-items: center;
  padding: .6rem 1rem; border-bottom: 1px solid var(--line); background: var(--panel); }
header.top .brand { font-weight: 700; }
header.top nav { display: flex; gap: 1rem; }
header.top .attention { display: flex; flex-wrap: wrap; gap: .3rem .8rem; font-size: 14px; }
header.top .count { color: var(--muted); text-decoration: none; }
header.top .count.hot { color: var(--bad); font-weight: 600; }
tr.needs td:first-child { box-shadow: inset 4px 0 0 var(--bad); }
td.why { color: var(--bad); }
header.top .who { margin-left: auto; color: var(--muted); display: flex; gap: .75rem; align-items: center; }
main { padding: 1rem; max-width: 1400px; margin: 0 auto; }
h1 { font-size: 1.35rem; margin: .2rem 0 .8rem; overflow-wrap: anywhere; }
h2 { font-size: 1.1rem; margin: 1.2rem 0 .5rem; }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: .8rem 1rem; margin-bottom: 1rem; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(220px, 1fr)); gap: .6rem 1.2rem; }
.muted { color: var(--muted); }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: 14px; }
th, td { text-align: left; padding: .4rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); white-space: nowrap; }
td.num { font-variant-numeric: tabular-nums; white-space: nowrap; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; }
pre { background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: .6rem;
  overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 24rem; }
.badge { display: inline-flex; align-items: center; gap: .35rem; font-weight: 600; white-space: nowrap; }
.badge::before { content: ""; width: .7rem; height: .7rem; border-radius: 50%; background: currentColor; }
.d-applied, .d-approved, .s-open { color: var(--ok); }
.d-cached, .d-replayed, .d-escalation_retry_allowed, .d-escalation_closed { color: var(--info); }
.d-pending, .d-abandoned, .s-expired { color: var(--idle); }
.d-block, .d-denied, .d-halted, .s-halted { color: var(--bad); }
.d-retry { color: var(--warn); }
.d-escalate, .d-approval_requested { color: var(--esc); }
meter { width: 6rem; height: .8rem; vertical-align: middle; }
.gauge { white-space: nowrap; }
form.inline { display: inline; }
label { display: block; margin: .4rem 0 .2rem; font-weight: 600; }
label.check { font-weight: 400; display: flex; gap: .4rem; align-items: center; }
input[type=text], input[type=password], input[type=number], select, textarea {
  font: inherit; padding: .35rem .5rem; border: 1px solid var(--line); border-radius: 6px;
  background: var(--bg); color: var(--fg); max-width: 100%; }
button { font: inherit; padding: .35rem .9rem; border-radius: 6px; border: 1px solid var(--line);
  background: var(--panel); color: var(--fg); cursor: pointer; }
button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
button.danger { background: var(--bad); border-color: var(--bad); color: #fff; }
button.link { border: none; background: none; color: var(--accent); padding: 0; text-decoration: underline; }
.notice { border-left: 4px solid var(--warn); padding: .5rem .8rem; background: var(--panel); margin-bottom: 1rem; }
.notice.error { border-color: var(--bad); }
.signin { max-width: 26rem; margin: 4rem auto; }
.signin input { width: 100%; }
details > summary { cursor: pointer; }
tr.more td { border-bottom: 1px solid var(--line); padding-top: 0; }
.live { font-size: 13px; color: var(--muted); }
.open-for { font-size: 13px; color: var(--muted); }
dl.detail { display: grid; grid-template-columns: max-content 1fr; gap: .25rem .8rem; margin: .5rem 0; }
dl.detail > div { display: contents; }
dl.detail dt { font-weight: 600; color: var(--muted); }
dl.detail dd { margin: 0; overflow-wrap: anywhere; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(300px, 1fr)); gap: .6rem 1.2rem; }
figure.chart { margin: 0; min-width: 0; }
figure.chart figcaption { font-weight: 600; color: var(--muted); }
figure.chart svg { display: block; width: 100%; height: auto; }
figure.chart .bar { fill: currentColor; }
figure.chart .axis line { stroke: var(--line); }
figure.chart text { fill: var(--muted); font-size: 11px; }
figure.chart .limit { stroke: var(--bad); stroke-dasharray: 5 4; }
figure.chart .burn { fill: none; stroke: var(--accent); stroke-width: 2; }
ul.legend { display: flex; flex-wrap: wrap; gap: .2rem .8rem; list-style: none; padding: 0; margin: .3rem 0; font-size: 13px; }
details.numbers { font-size: 13px; }
@media (max-width: 640px) {
  main { padding: .6rem; }
  th, td { padding: .3rem .35rem; }
  .hide-narrow { display: none; }
}
`;
