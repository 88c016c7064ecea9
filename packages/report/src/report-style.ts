// The report's one stylesheet, inlined in every page (its hash is in each
// page's Content-Security-Policy). Colours are chosen for WCAG AA contrast on
// their backgrounds; axe-core checks it in the browser tests.
export const REPORT_CSS = `
:root{--fg:#1f2328;--muted:#57606a;--line:#d0d7de;--bg:#fff;--soft:#f6f8fa;--accent:#0550ae;--ok:#116329;--bad:#a40e26;--warn:#7d4e00;
--del-bg:#ffebe9;--del-line:#ffc1bc;--ins-bg:#dafbe1;--ins-line:#aceebb;--chg:#9a6700;--mono:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace}
*{box-sizing:border-box}
html{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--fg);background:var(--bg)}
body{margin:0}
a{color:var(--accent)}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:#fff;padding:4px 8px;z-index:2}
header.top{display:flex;gap:24px;align-items:baseline;padding:10px 24px;border-bottom:1px solid var(--line);background:var(--soft)}
header.top .brand{font-weight:700}
header.top nav a{margin-right:16px;text-decoration:none;font-weight:600}
header.top nav a[aria-current]{text-decoration:underline}
main{padding:16px 24px 48px;max-width:1500px;margin:0 auto}
h1{font-size:1.6rem;margin:.4em 0 .2em}h2{font-size:1.25rem;margin:1.6em 0 .5em;border-bottom:1px solid var(--line);padding-bottom:4px}h3{font-size:1.05rem;margin:1.2em 0 .4em}
p.lead{color:var(--muted);margin-top:0}
table{border-collapse:collapse;margin:.4em 0 1em}
th,td{border-bottom:1px solid var(--line);padding:5px 10px;text-align:left;vertical-align:top}
th{background:var(--soft);font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
caption{text-align:left;font-weight:600;padding:4px 0}
code,pre,.mono{font-family:var(--mono);font-size:.86rem}
.badge{display:inline-block;border-radius:10px;padding:0 8px;margin:1px 2px;font-size:.8rem;font-weight:600;border:1px solid currentColor;white-space:nowrap}
.badge-verified,.badge-ok{color:var(--ok)}.badge-not-verified,.badge-bad,.badge-flaky{color:var(--bad)}
.badge-skipped,.badge-skipped-env,.badge-not-run,.badge-warn,.badge-draft,.badge-excluded,.badge-deprecated{color:var(--warn)}
.gate{padding:.4em .6em;border-left:4px solid var(--ok)}.gate-failed{border-left-color:var(--bad)}
.badge-synthetic-data,.badge-info{color:var(--accent)}
.badge-same{color:var(--muted)}.badge-changed{color:var(--chg)}.badge-added{color:var(--ok)}.badge-removed{color:var(--bad)}.badge-crash{color:#fff;background:var(--bad);border-color:var(--bad)}
.filters{display:flex;flex-wrap:wrap;gap:10px 16px;align-items:end;margin:10px 0;padding:10px 12px;background:var(--soft);border:1px solid var(--line);border-radius:6px}
.filters label{display:flex;flex-direction:column;font-size:.82rem;font-weight:600;color:var(--muted)}
.filters input,.filters select,.filters button{font:inherit;font-size:.9rem;padding:3px 6px;border:1px solid #8c959f;border-radius:4px;background:#fff;color:var(--fg)}
.filters button{cursor:pointer}
.counts{margin:6px 0 10px;font-weight:600}
.counts span{font-weight:400;color:var(--muted)}
table.instances{width:100%}
table.instances th button{all:unset;cursor:pointer;font-weight:600;color:var(--fg)}
table.instances th button:focus-visible{outline:2px solid var(--accent)}
table.instances th[aria-sort=ascending] button::after{content:" \\25B2"}
table.instances th[aria-sort=descending] button::after{content:" \\25BC"}
table.instances td .sub{display:block;color:var(--muted);font-size:.82rem}
[hidden]{display:none!important}
.muted{color:var(--muted)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:.5em 0}
dl.facts dt{font-weight:600;color:var(--muted)}dl.facts dd{margin:0}
.diagnosis{background:var(--soft);border-left:4px solid var(--accent);padding:8px 12px;margin:.6em 0;white-space:pre-wrap}
.problem{border:1px solid var(--bad);color:var(--bad);padding:6px 10px;border-radius:4px}
.crashline{font-family:var(--mono);font-size:.95rem;background:var(--del-bg);border:1px solid var(--del-line);padding:6px 10px;border-radius:4px;overflow-wrap:anywhere}
.nb-head{display:grid;grid-template-columns:1fr 1fr;gap:12px;position:sticky;top:0;background:var(--bg);z-index:1;padding:6px 0;border-bottom:1px solid var(--line)}
.nb-head h3{margin:0}
.nb-row{display:grid;grid-template-columns:1fr 1fr;gap:12px;margin:8px 0}
.cell{border:1px solid var(--line);border-radius:6px;min-width:0;background:var(--bg)}
.cell.empty{border-style:dashed;background:var(--soft)}
.cell .cell-head{display:flex;flex-wrap:wrap;gap:6px;align-items:center;font-size:.8rem;color:var(--muted);padding:3px 8px;border-bottom:1px solid var(--line);background:var(--soft);border-radius:6px 6px 0 0}
.nb-row.changed .cell,.nb-row.reordered .cell{border-color:var(--chg)}
.nb-row.removed .cell:not(.empty){border-color:var(--bad)}
.nb-row.added .cell:not(.empty){border-color:var(--ok)}
.cell.crash{border:2px solid var(--bad)}
.cell pre{margin:0;padding:6px 8px;overflow-x:auto;white-space:pre-wrap;overflow-wrap:anywhere}
.cell pre.md{font-family:inherit;font-size:.9rem;color:var(--fg)}
.cell pre .ln{display:block;min-height:1.2em}
.cell pre .del{background:var(--del-bg);text-decoration:none}
.cell pre .ins{background:var(--ins-bg);text-decoration:none}
.cell pre .del::before{content:"- ";color:var(--bad)}.cell pre .ins::before{content:"+ ";color:var(--ok)}
.cell pre .same::before{content:"  "}
.output{border-top:1px dashed var(--line)}
.output img{max-width:100%;height:auto;display:block;padding:6px}
.traceback{background:#fff8f8;border-top:1px solid var(--del-line)}
.traceback .tb-title{margin:0;padding:4px 8px;font-size:.8rem;font-weight:700;color:var(--bad)}
pre.ansi{font-size:.8rem;line-height:1.35}
pre.scroll{max-height:28em;overflow:auto}
.table-wrap{overflow-x:auto}
table.instances td,table.instances th{padding:5px 7px}
pre.traceback-block{background:#fff8f8;border:1px solid var(--del-line);border-radius:6px;padding:8px 10px;overflow-x:auto;white-space:pre-wrap;overflow-wrap:anywhere}
ul.files{columns:2 320px;padding-left:1.2em}
.toggle{margin:8px 0;font-weight:600}
#only-changed:checked~.nb .nb-row.same{display:none}
.ansi-bold{font-weight:700}.ansi-dim{opacity:.75}.ansi-italic{font-style:italic}.ansi-underline{text-decoration:underline}
.ansi-fg-0{color:#24292f}.ansi-fg-1{color:#b31d28}.ansi-fg-2{color:#116329}.ansi-fg-3{color:#7d4e00}.ansi-fg-4{color:#0550ae}.ansi-fg-5{color:#8250df}.ansi-fg-6{color:#1b6d74}.ansi-fg-7{color:#57606a}
.ansi-fg-8{color:#57606a}.ansi-fg-9{color:#a40e26}.ansi-fg-10{color:#0f5323}.ansi-fg-11{color:#6c4400}.ansi-fg-12{color:#0a3069}.ansi-fg-13{color:#6639ba}.ansi-fg-14{color:#135e65}.ansi-fg-15{color:#24292f}
.ansi-bg-0{background:#d0d7de}.ansi-bg-1{background:#ffd7d5}.ansi-bg-2{background:#d2f4d3}.ansi-bg-3{background:#fff1b8}.ansi-bg-4{background:#d6e6ff}.ansi-bg-5{background:#efe2ff}.ansi-bg-6{background:#d3f3f1}.ansi-bg-7{background:#eaeef2}
.ansi-bg-8{background:#d0d7de}.ansi-bg-9{background:#ffd7d5}.ansi-bg-10{background:#d2f4d3}.ansi-bg-11{background:#fff1b8}.ansi-bg-12{background:#d6e6ff}.ansi-bg-13{background:#efe2ff}.ansi-bg-14{background:#d3f3f1}.ansi-bg-15{background:#f6f8fa}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(420px,1fr));gap:16px}
figure{margin:0;border:1px solid var(--line);border-radius:6px;padding:8px}
figure img{max-width:100%;height:auto}
figcaption{font-weight:600;margin-bottom:4px}
@media (max-width:900px){.nb-row,.nb-head{grid-template-columns:1fr}}
`;
