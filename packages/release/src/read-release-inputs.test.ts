// readReleaseInputs on a curated fixture: what of curated/ a release carries.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatJson } from '@junobench/core';
import { readFixtureInputs, writeCuratedFixture, type Fixture } from '../test-helpers/release.js';

let f: Fixture;
let deprecatedFile: string;

beforeAll(async () => {
  f = await writeCuratedFixture([{ id: 'numpy_1' }, { id: 'pandas_1' }]);
  // The report as the build writes it: a page per instance of curated/benchmark.json, deprecated ones included.
  await mkdir(path.join(f.curated, 'report', 'instances'), { recursive: true });
  await writeFile(
    path.join(f.curated, 'report', 'index.html'),
    '<h1>2 instances</h1><a href="instances/numpy_1.html">numpy_1</a><a href="instances/pandas_1.html">pandas_1</a>\n',
  );
  for (const id of ['numpy_1', 'pandas_1'])
    await writeFile(path.join(f.curated, 'report', 'instances', `${id}.html`), `<h1>${id}</h1>\n`);
  deprecatedFile = path.join(f.root, 'deprecated.json');
  await writeFile(
    deprecatedFile,
    formatJson({
      instances: [{ id: 'pandas_1', deprecatedIn: '0.1.0', reason: 'the dataset was withdrawn by its author' }],
    }),
  );
}, 60_000);
afterAll(() => rm(f.root, { recursive: true, force: true }));

describe('readReleaseInputs: the report', () => {
  it('carries curated/report when no instance is deprecated', async () => {
    const inputs = await readFixtureInputs(f, '0.1.0');
    expect(inputs.files.map((x) => x.path).filter((p) => p.startsWith('report/'))).toEqual([
      'report/index.html',
      'report/instances/numpy_1.html',
      'report/instances/pandas_1.html',
    ]);
    expect(inputs.warnings.join('\n')).not.toMatch(/report/);
  });

  it('leaves it out, saying why, when it shows a deprecated instance (the build keeps them: a withdrawn instance was published in report/)', async () => {
    const inputs = await readFixtureInputs(f, '0.1.0', { deprecatedFile });
    expect(inputs.instances.map((i) => i.id)).toEqual(['numpy_1']);
    expect(inputs.files.filter((x) => x.path.startsWith('report/'))).toEqual([]);
    expect(inputs.warnings).toContain(
      'curated/report shows deprecated instance pandas_1 (the build keeps them): the release carries no report/',
    );
  });
});
