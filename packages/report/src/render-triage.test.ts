import { describe, expect, it } from 'vitest';
import type { TriageReport } from '@junobench/core';
import { renderTriagePage } from './render-triage.js';

const report: TriageReport = {
  inputs: ['curated/pool/sample.jsonl'],
  entries: [
    { key: 'record:a', label: 'a (a.ipynb)', status: 'drafted', id: 'pandas_1', reproduced: true },
    {
      key: 'record:b',
      label: 'b (b.ipynb)',
      status: 'drafted',
      id: 'pandas_2',
      reproduced: false,
      cause: 'needs-data',
      detail: 'an input file is missing: <data/x.csv>',
    },
    { key: 'record:c', label: 'c (c.ipynb)', status: 'unavailable', reason: 'kernel not found (404)' },
  ],
  funnel: {
    records: 3,
    notebooks: 2,
    drafts: 2,
    reproduced: 1,
    byCause: { 'needs-data': 1 },
    unavailable: 1,
    refused: 0,
    failed: 0,
  },
};

describe('renderTriagePage', () => {
  it('shows the funnel, the causes and every item, escaped', () => {
    const html = renderTriagePage([report], 'JunoBench');
    expect(html).toMatch(/<th scope="row">records<\/th><td class="num">3<\/td>/);
    expect(html).toMatch(/<th scope="row">reproduced<\/th><td class="num">1<\/td>/);
    expect(html).toContain('needs-data');
    expect(html).toContain('kernel not found (404)');
    expect(html).toContain('&lt;data/x.csv&gt;');
    expect(html).not.toContain('<data/x.csv>');
    expect(html).toContain('aria-current="page">Triage</a>');
  });
});
