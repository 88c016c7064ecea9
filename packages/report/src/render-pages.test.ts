import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readReportData } from './read-report-data.js';
import type { ReportData, ReportInstance } from './report-data.js';
import { renderIndexPage } from './render-index.js';
import { renderInstancePage } from './render-instance.js';
import { renderStatsPage } from './render-stats.js';
import { sha256Base64 } from './render-page.js';
import { HOSTILE, PANDAS_ADDED_LINE, writeReportFixture } from '../test-helpers/report-fixture.js';

// Fixture folders and whole reports on a shared, busy machine: generous limits, never timings.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let tmp: string;
let data: ReportData;
const inst = (id: string) => data.instances.find((i) => i.id === id)!;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'jb-report-render-'));
  const fx = await writeReportFixture(tmp);
  data = await readReportData({ from: fx.curated, raw: fx.raw, out: path.join(fx.curated, 'report') });
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** The page's Content-Security-Policy, and the inline scripts and styles it has to admit. */
function policy(html: string): { csp: string; scripts: string[]; styles: string[] } {
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1] ?? '';
  const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
  const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]!);
  return { csp: csp.replace(/&#39;/g, "'"), scripts, styles };
}

describe('every page', () => {
  it('admits only its own script and stylesheet, by hash, and nothing from the network', () => {
    for (const html of [
      renderIndexPage(data),
      renderStatsPage(data),
      ...data.instances.map((i) => renderInstancePage(i, data.name)),
    ]) {
      const { csp, scripts, styles } = policy(html);
      expect(csp).toMatch(
        /^default-src 'none'; script-src ('sha256-[A-Za-z0-9+/=]+'|'none'); style-src 'sha256-[A-Za-z0-9+/=]+'; img-src data:; base-uri 'none'; form-action 'none'$/,
      );
      expect(csp).not.toContain('unsafe');
      expect(styles).toHaveLength(1);
      expect(csp).toContain(`style-src '${sha256Base64(styles[0]!)}'`);
      for (const s of scripts) expect(csp).toContain(`'${sha256Base64(s)}'`);
      expect(html).not.toMatch(/ style="/);
      // Nothing is loaded from anywhere: every src is a data: URI; no protocol-relative links.
      for (const m of html.matchAll(/ src="([^"]*)"/g))
        expect(m[1]).toMatch(/^data:image\/(png|jpeg|svg\+xml);base64,/);
      expect(html).not.toContain('href="//');
    }
  });
});

describe('renderIndexPage', () => {
  const html = () => renderIndexPage(data);

  it('has one row per instance with the values the filters use', () => {
    const rows = html().match(/<tr data-id="[^"]+"/g);
    expect(rows).toEqual([
      '<tr data-id="NBspecific_1"',
      '<tr data-id="pandas_1"',
      '<tr data-id="tensorflow_1"',
      '<tr data-id="torch_1"',
    ]);
    expect(html()).toContain(
      'data-library="pandas" data-crash-type="value error" data-root-cause="data confusion" data-pipeline-stage="data preparation" data-status="verified" data-flags=""',
    );
    expect(html()).toContain('data-status="skipped" data-flags="synthetic-data skipped-env"');
    expect(html()).toContain('data-status="flaky" data-flags="flaky excluded"');
  });

  it('shows durations and the counts before any script runs', () => {
    expect(html()).toContain('<b id="count-shown">4</b> of 4 instances shown');
    expect(html()).toContain('verified <b data-count="status:verified">2</b>');
    expect(html()).toContain('not in benchmark <b data-count="flag:excluded">1</b>');
    expect(html()).toMatch(/data-sort="1234\.0">.*crash-reproduced.*1\.2 s/);
  });

  it('offers filter values from the data, escaped', () => {
    expect(html()).toContain('<option value="tensorflow/keras">tensorflow/keras</option>');
    expect(html()).toContain('<option value="excluded">not in benchmark</option>');
  });
});

describe('renderInstancePage', () => {
  it('shows hostile notebook text and diagnosis as text: no markup of theirs survives', () => {
    const html = renderInstancePage(inst('NBspecific_1'), data.name);
    expect(html).not.toContain('<script');
    expect(html).not.toMatch(/<img src=x|<[^>]+\sonerror=/i);
    expect(html).not.toContain('<b>bold?</b>');
    expect(html).toContain('&lt;script&gt;window.__pwned = 1&lt;/script&gt;');
    expect(html).toContain('&lt;script&gt;window.__pwned = 3&lt;/script&gt;');
    expect(html).toContain('&lt;/div&gt;&lt;/script&gt;&lt;script&gt;window.__pwned = 6&lt;/script&gt;');
    expect(html).toContain('[text/html output not shown]');
    expect(HOSTILE.html).toContain('<b>bold?</b>');
  });

  it('never links an unsafe URL; shows it as text', () => {
    const html = renderInstancePage(inst('pandas_1'), data.name);
    expect(html).not.toContain('href="javascript:');
    expect(html).toContain('<td>javascript:window.__pwned=9</td>');
    expect(html).toContain(
      '<a href="https://www.kaggle.com/datasets/someone/regional-sales" rel="noopener noreferrer external">',
    );
  });

  it('marks the changed cells as a diff and the crash cell with its traceback', () => {
    const html = renderInstancePage(inst('pandas_1'), data.name);
    expect(html).toContain('1 changed, 1 added and 0 removed cells; 3 the same.');
    expect(html.match(/<div class="nb-row changed">/g)).toHaveLength(1);
    expect(html).toContain(`<ins class="ln ins">${PANDAS_ADDED_LINE.replace(/'/g, '&#39;')}</ins>`);
    expect(html).toMatch(/<div class="cell crash" id="crash-cell"><div class="cell-head"><span>code cell 2<\/span>/);
    expect(html).toContain('Observed in verification: IntCastingNaNError');
    // The original's saved traceback, coloured.
    expect(html).toContain('<span class="ansi-fg-1">IntCastingNaNError</span>');
  });

  it('shows what a repair must achieve: each check with its reason and result, and the mutation test, escaped', () => {
    const r: ReportInstance = {
      ...inst('pandas_1'),
      checks: {
        instance: 'pandas_1',
        status: 'complete',
        checks: [{ name: 'check_income', reason: '`income` is 0/1 <for every row>' }],
        fixed: { runs: 2, passed: 2 },
        mutants: [
          {
            id: 'guard-if-len@5:2',
            family: 'guard-if-len',
            description: 'the crashing statement under if len([]) > 0:',
            outcome: 'checks-failed',
            failed: ['check_income'],
          },
        ],
        score: { generated: 1, rejected: 1, value: 1 },
        survivors: [],
        waived: [],
        contentHash: 'x',
      },
    };
    r.verification = {
      ...r.verification!,
      fixed: { ...r.verification!.fixed, checks: [{ name: 'check_income', passed: true }] },
    };
    const html = renderInstancePage(r, data.name);
    expect(html).toContain('<h2 id="checks">What a repair must achieve</h2>');
    expect(html).toContain(
      '<td><code>check_income</code></td><td>`income` is 0/1 &lt;for every row&gt;</td><td><span class="badge badge-ok">passed</span></td>',
    );
    expect(html).toContain('1 of 1 non-fixes rejected');
    expect(html).toContain(
      '<td><code>guard-if-len@5:2</code></td><td>the crashing statement under if len([]) &gt; 0:</td><td>checks-failed: check_income</td>',
    );
    expect(renderInstancePage(inst('torch_1'), data.name)).not.toContain('id="checks"');
  });

  it('shows labels, the disagreement and how it was resolved, verification and runtime', () => {
    const html = renderInstancePage(inst('pandas_1'), data.name);
    expect(html).toContain('annotator-a: <b>value error</b><br>annotator-b: <b>invalid argument</b>');
    expect(html).toContain(
      '<b>value error</b> (adjudicated)<br><span class="muted">IntCastingNaNError is a ValueError',
    );
    expect(html).toContain('<dt>Python</dt><dd>3.11.2 (/usr/bin/python3)</dd>');
    expect(html).toContain('numpy 1.24.2, pandas 1.5.3');
    expect(html).toMatch(/<th scope="row">reproduced<\/th><td><span class="badge badge-ok">crash-reproduced<\/span>/);
  });

  it('flags skipped-env and synthetic data, and says why an instance is left out', () => {
    const tf = renderInstancePage(inst('tensorflow_1'), data.name);
    expect(tf).toContain('badge-skipped-env');
    expect(tf).toContain('required module tensorflow is not importable');
    expect(tf).toContain('The original dataset may not be redistributed');
    expect(tf).toContain('tensorflow (not importable)');
    // Skipped versions ran nothing: no "0 of 0" cells or "0 ms" duration as if a kernel had run them.
    const tfRows = [...tf.matchAll(/<tr><th scope="row">(reproduced|fixed)<\/th>[\s\S]*?<\/tr>/g)].map((m) => m[0]);
    expect(tfRows).toHaveLength(2);
    for (const r of tfRows) {
      expect(r).toContain('not run');
      expect(r).not.toMatch(/>0 of 0<|>0 ms</);
    }
    const torch = renderInstancePage(inst('torch_1'), data.name);
    expect(torch).toContain('Not in the benchmark: flaky: reproduced crash-reproduced, fixed fixed-ok');
    expect(torch).toContain('Repeated runs: reproduced crash-reproduced, no-crash; fixed fixed-ok, fixed-ok.');
  });

  it('shows a draft with its suggested labels, and without a fixed notebook', () => {
    const base = inst('torch_1');
    const draft: ReportInstance = {
      ...base,
      id: 'torch_9',
      excludedReason: 'a draft: not yet reviewed and verified, so not in the benchmark',
      notebooks: { reproduced: base.notebooks.reproduced! },
      instance: {
        ...base.instance!,
        id: 'torch_9',
        status: 'draft',
        suggestedLabels: { library: { value: 'torch', confidence: 0.8, evidence: ['RuntimeError from torch.nn'] } },
      },
    };
    delete draft.verification;
    delete draft.finalLabels;
    const html = renderInstancePage(draft, data.name);
    expect(html).toContain('<span class="badge badge-draft">draft</span>');
    expect(html).toContain('<h3>Suggested labels</h3>');
    expect(html).toContain('<td>torch</td><td class="num">0.80</td><td>RuntimeError from torch.nn</td>');
    expect(html).toContain('No fixed notebook (a draft)');
    expect(html).toContain('Not verified by this build.');
  });
});

describe('renderStatsPage', () => {
  it('shows the charts as images (an SVG in <img> cannot run script), the tables and the agreement', () => {
    const html = renderStatsPage(data);
    expect(html).not.toContain('<script');
    expect(html).toContain(`src="data:image/svg+xml;base64,${Buffer.from(HOSTILE.svg).toString('base64')}"`);
    expect(html).toContain('alt="Instances by library cause (the same counts are in the tables below)"');
    expect(html).toContain('<caption>library cause × root cause</caption>');
    expect(html).toContain('<td class="num"><b>0.640</b></td>');
    expect(html).toMatch(/<a href="instances\/pandas_1\.html">pandas_1<\/a><\/td><td>crash type<\/td>/);
    expect(html).toContain('IntCastingNaNError is a ValueError: the crash type is the exception class.');
    expect(html).toContain('<a href="../stats/stats.md">stats.md</a>');
  });
});
