import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DiagnoseAnswer, LibraryName, Scorecard } from '@junobench/core';
import { rate } from './metrics.js';
import {
  formatScoreSummary,
  renderBarChart,
  renderScorecardCharts,
  renderScorecardMarkdown,
} from './render-scorecard.js';
import { scoreDetect, scoreDiagnose, scoreRepair } from './score-answers.js';
import { writeScorecard } from './write-scorecard.js';
import type { DetectKey, DiagnoseKey, RepairKey } from './plan-tasks.js';

const detectKeys: DetectKey[] = [
  {
    kind: 'detect',
    id: 'detect-a',
    instance: 'x',
    version: 'reproduced',
    crashes: true,
    exception: 'KeyError',
    cell: 2,
    target: 2,
  },
  { kind: 'detect', id: 'detect-b', instance: 'x', version: 'fixed', crashes: false, cell: null, target: 2 },
];
const diagnoseKeys: DiagnoseKey[] = [
  {
    kind: 'diagnose',
    id: 'diagnose-a',
    instance: 'x',
    labels: { library: 'pandas', crashType: 'key error', rootCause: 'API misuse', pipelineStage: 'training' },
  },
];
const repairKeys = [
  { kind: 'repair', id: 'repair-a', instance: 'x' },
  { kind: 'repair', id: 'repair-b', instance: 'tf_1' },
] as RepairKey[];
const card: Scorecard = {
  tasks: { detect: 2, diagnose: 1, repair: 2, instances: 2 },
  predictions: { lines: 3, scored: 2, problems: [{ line: 3, message: 'invalid JSON' }] },
  runtime: { kind: 'local', sandboxed: false },
  detect: scoreDetect(detectKeys, [
    { line: 1, task: 'detect', id: 'detect-a', attempt: 1, answer: { crashes: true, exception: 'KeyError' } },
  ]),
  diagnose: scoreDiagnose(diagnoseKeys, [
    { line: 2, task: 'diagnose', id: 'diagnose-a', attempt: 1, answer: { library: 'pandas' } },
  ]),
  repair: scoreRepair(
    repairKeys,
    [1],
    new Map([
      [
        'repair-a\u00001',
        {
          resolved: false,
          outcome: 'cells-missing',
          reason: 'code cell 2 (deleted) of the crashing notebook is no longer there',
        },
      ],
    ]),
    new Map([['repair-b', 'required module tensorflow not importable']]),
  ),
};

describe('scorecard rendering', () => {
  it('summarises on a few lines', () => {
    const s = formatScoreSummary(card);
    expect(s).toContain('detect    2 tasks: crash 50.0% (1/2) · cell 50.0% (1/2) · exception 100.0% (1/1)');
    expect(s).toContain('diagnose  1 tasks: library 100.0% (F1 1.00) · crash type 0.0% (F1 0.00)');
    expect(s).toContain('repair    1 scorable tasks: resolved 0.0% (0/1) · pass@1 0.0%');
    expect(s).toContain('excluded tf_1 (repair-b): required module tensorflow not importable');
    expect(s).toContain('unresolved attempts: cells-missing 1');
    expect(s).toContain('predictions: 3 lines, 2 scored, 1 left out');
  });

  it('writes Markdown with every dimension, and one chart per dimension', () => {
    const charts = renderScorecardCharts(card);
    expect([...charts.keys()]).toEqual([
      'detect.svg',
      'diagnose-library.svg',
      'diagnose-crashType.svg',
      'diagnose-rootCause.svg',
      'diagnose-pipelineStage.svg',
      'repair.svg',
    ]);
    const md = renderScorecardMarkdown(card, [...charts.keys()]);
    expect(md).toContain('| crash / no crash | 50.0% (1/2) | 50.0% (1/2) |');
    expect(md).toContain('2 tasks (1 crash), 1 attempt per task.');
    // A tasks file cut to the crashing task only: not "half crash".
    const cut = renderScorecardMarkdown({ ...card, detect: scoreDetect(detectKeys.slice(0, 1), []) }, []);
    expect(cut).toContain('1 tasks (1 crash), 1 attempt per task.');
    expect(md).toContain('| library | 100.0% (1/1) | 1.000 | 100.0% (1/1) | 1.000 |');
    expect(md).toContain(
      '| x | repair-a | 1 | cells-missing | code cell 2 (deleted) of the crashing notebook is no longer there |',
    );
    expect(md).toContain('- tf_1 (repair-b): required module tensorflow not importable');
    expect(md).toContain('- line 3: invalid JSON');
    expect(md).toContain('![repair](repair.svg)');
  });

  it('says repairs were executed only when one was', () => {
    const none = renderScorecardMarkdown(card, []);
    expect(none).not.toContain('Repairs were executed');
    expect(none).toContain(
      'No repaired notebook was executed (no repair answer reached execution); the repair tasks were checked against the **local** runtime (not sandboxed), whose modules decide which tasks are excluded.',
    );
    const ran = scoreRepair(
      repairKeys,
      [1],
      new Map([['repair-a\u00001', { resolved: false, outcome: 'crashed', reason: 'KeyError' }]]),
      new Map(),
    );
    expect(
      renderScorecardMarkdown({ ...card, runtime: { kind: 'docker', sandboxed: true }, repair: ran }, []),
    ).toContain('Repairs were executed in the **docker** runtime (sandboxed).');
  });

  it("labels the per-class F1 of a diagnose chart as the majority answers' when there are several attempts", () => {
    const keys: DiagnoseKey[] = ['a', 'b'].map((x) => ({
      kind: 'diagnose',
      id: `diagnose-${x}`,
      instance: x,
      labels: { library: 'pandas', crashType: 'key error', rootCause: 'API misuse', pipelineStage: 'training' },
    }));
    const answer = (library: LibraryName): DiagnoseAnswer => ({
      library,
      crashType: 'key error',
      rootCause: 'API misuse',
      pipelineStage: 'training',
    });
    // attempt 1 right on both, attempt 2 wrong on both, attempt 3 right on one: single accuracy 3/6, majority 2/2.
    const predictions = [
      { line: 1, task: 'diagnose' as const, id: 'diagnose-a', attempt: 1, answer: answer('pandas') },
      { line: 2, task: 'diagnose' as const, id: 'diagnose-b', attempt: 1, answer: answer('pandas') },
      { line: 3, task: 'diagnose' as const, id: 'diagnose-a', attempt: 2, answer: answer('numpy') },
      { line: 4, task: 'diagnose' as const, id: 'diagnose-b', attempt: 2, answer: answer('numpy') },
      { line: 5, task: 'diagnose' as const, id: 'diagnose-a', attempt: 3, answer: answer('pandas') },
    ];
    const several = renderScorecardCharts({ ...card, diagnose: scoreDiagnose(keys, predictions) }).get(
      'diagnose-library.svg',
    )!;
    expect(several).toContain('>accuracy (majority)</text>');
    expect(several).toContain('>100.0% (2/2)</text>');
    expect(several).toContain('>macro-F1 (majority)</text>');
    expect(several).toContain('>F1 pandas (majority)</text>');
    expect(several).not.toContain('>F1 pandas</text>');
    const one = renderScorecardCharts(card).get('diagnose-library.svg')!;
    expect(one).toContain('>F1 pandas</text>');
    expect(one).not.toContain('majority');
  });

  it('says how the majority vote counts a missing attempt, when there are several attempts', () => {
    const line =
      'In the majority vote a missing attempt abstains: the answers given decide, and a task with no answer in any attempt is wrong.';
    expect(renderScorecardMarkdown(card, [])).not.toContain(line);
    const two = scoreDetect(detectKeys, [
      { line: 1, task: 'detect', id: 'detect-a', attempt: 2, answer: { crashes: true } },
      { line: 2, task: 'detect', id: 'detect-b', attempt: 1, answer: { crashes: false } },
    ]);
    expect(
      renderScorecardMarkdown({ ...card, detect: two }, [])
        .split('\n')
        .slice(0, 5),
    ).toContain(line);
  });

  it('draws self-contained SVG with escaped text', () => {
    const svg = renderBarChart('a <b> & "c"', [
      { label: 'x<y', value: 0.5, note: '(1/2)' },
      { label: 'over', value: 2 },
    ]);
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg).toContain('<title>a &lt;b&gt; &amp; &quot;c&quot;</title>');
    expect(svg).toContain('>x&lt;y</text>');
    expect(svg).toContain('width="180"'); // half of the 360 px plot
    expect(svg).toContain('width="360" height="16" fill="#3b6ea8"'); // clamped to 100%
    expect(svg).not.toMatch(/<script|href=/);
  });

  it('writes the files together, validated; same card → same bytes', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'jb-card-'));
    await writeScorecard(card, { out: path.join(dir, 'a'), json: path.join(dir, 'card.json') });
    await writeScorecard(card, { out: path.join(dir, 'b') });
    expect((await readdir(path.join(dir, 'a'))).sort()).toEqual(
      [...renderScorecardCharts(card).keys(), 'scorecard.json', 'scorecard.md'].sort(),
    );
    for (const f of await readdir(path.join(dir, 'a'))) {
      expect(await readFile(path.join(dir, 'b', f), 'utf8')).toBe(await readFile(path.join(dir, 'a', f), 'utf8'));
    }
    expect(JSON.parse(await readFile(path.join(dir, 'card.json'), 'utf8'))).toEqual(card);
    await expect(
      writeScorecard(
        { ...card, detect: { ...card.detect!, single: { ...card.detect!.single, crash: rate(3, 2) } } },
        { out: path.join(dir, 'c') },
      ),
    ).rejects.toThrow(/not a valid scorecard/);
  });
});
