// The maintainer's path end to end, as README.md, "The maintainer's path", walks it: every command of its
// walk-through runs here, in its order, in ONE copy of a small project (two embedded instances and the crash added):
// add with --data, a sheet for each of two annotators filled by a script, their import, agreement over the gate,
// build, release prepare then verify, publish to a local bare git repository, the local registry and the GitHub
// stand-in, and the release's own report. What a maintainer does by hand between commands (repair the draft fix,
// fill a sheet, mark the instance ready) is done by a script. Kernel work is kept small: three instances.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatJson, type ImageRecord } from '@junobench/core';
import { makeNotebook } from '../packages/sources/test-helpers/notebooks.js';
import { GithubReleasesServer } from '../packages/release/test-helpers/github-releases-server.js';
import { buildStandinImage } from '../packages/release/test-helpers/standin-image.js';
import { repoRoot, runJunobench, type CliRun } from './run-cli.js';

const REGISTRY = process.env.JUNOBENCH_TEST_REGISTRY;
const KEPT = ['NBspecific_1', 'numpy_1'];
const TOKEN = 'ghp_' + 'm'.repeat(36);
const image = `localhost/junobench-maintainer-test:${randomBytes(4).toString('hex')}`;

let work: string;
let project: string;
let remote: string;
let gh: GithubReleasesServer;
let docker: Docker;
let env: NodeJS.ProcessEnv;
let commands: string[];
let draftId: string;
const ran: string[] = [];
const git = (...args: string[]) => execFileSync('git', args, { cwd: project, encoding: 'utf8' }).trim();

/** The walk-through's commands, from README.md, in order. */
async function readWalkthrough(): Promise<string[]> {
  const readme = await readFile(path.join(repoRoot, 'README.md'), 'utf8');
  const block = /<!-- maintainer-session: begin -->\n```sh\n([\s\S]*?)```\n<!-- maintainer-session: end -->/.exec(
    readme,
  );
  if (!block) throw new Error('README.md has no maintainer-session block');
  return block[1]!
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('npx junobench '));
}

/** The next command of the walk-through, which must start as given; run in the project with the session's inputs. */
async function step(starts: string): Promise<CliRun> {
  const line = commands[ran.length];
  expect(line, `the README's next command after ${ran.length} run`).toBeDefined();
  expect(line!.startsWith(`npx junobench ${starts}`), `README's command ${ran.length + 1}: ${line}`).toBe(true);
  ran.push(line!);
  const args = line!
    .slice('npx junobench '.length)
    .split(/\s+/)
    .map((a) =>
      a === 'crash.ipynb'
        ? path.join(work, 'inputs', 'crash.ipynb')
        : a === 'sales.csv'
          ? path.join(work, 'inputs', 'sales.csv')
          : a === '127.0.0.1:5117'
            ? REGISTRY!
            : a === '<id>'
              ? draftId
              : a,
    );
  return runJunobench(args, { cwd: project, env });
}

/** What an annotator does in a spreadsheet program: the draft's row labelled, reviewed yes. */
async function fillSheet(file: string, diagnosis: string): Promise<void> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.readFile(file);
  const ws = wb.getWorksheet('labels')!;
  const col = (header: string) => (ws.getRow(1).values as unknown[]).indexOf(header);
  ws.eachRow((row, n) => {
    if (n === 1 || row.getCell(col('instance')).value !== draftId) return;
    row.getCell(col('library cause')).value = 'pandas';
    row.getCell(col('crash type')).value = 'key error';
    row.getCell(col('root cause')).value = 'data confusion';
    row.getCell(col('pipeline stage')).value = 'data preparation';
    row.getCell(col('diagnosis')).value = diagnosis;
    row.getCell(col('reviewed')).value = 'yes';
  });
  await wb.xlsx.writeFile(file);
}

beforeAll(async () => {
  if (!REGISTRY)
    throw new Error(
      'JUNOBENCH_TEST_REGISTRY is not set: run `sh tools/setup-registry.sh` (as root) and export the line it prints (npm test does both)',
    );
  const host = process.env.DOCKER_HOST ?? 'unix:///run/podman/podman.sock';
  docker = new Docker({ socketPath: host.replace(/^unix:\/\//, '') });
  await docker.ping().catch((e: unknown) => {
    throw new Error(`no container engine at ${host}: run \`sh tools/setup-engine.sh\` (${(e as Error).message})`);
  });
  commands = await readWalkthrough();
  work = await mkdtemp(path.join(os.tmpdir(), 'jb-maintainer-'));
  project = path.join(work, 'project');

  // The project: the embedded raw/ cut to two instances (and their annotations), the gate's setting and where the
  // card tells a downloader to clone the toolchain (this checkout has no hosted remote).
  await cp(path.join(repoRoot, 'raw'), path.join(project, 'raw'), { recursive: true });
  for (const id of await readdir(path.join(project, 'raw', 'instances')))
    if (!KEPT.includes(id)) await rm(path.join(project, 'raw', 'instances', id), { recursive: true });
  for (const name of await readdir(path.join(project, 'raw', 'annotations'))) {
    const file = path.join(project, 'raw', 'annotations', name);
    const lines = (await readFile(file, 'utf8')).split('\n').filter((l) => KEPT.some((id) => l.includes(`"${id}"`)));
    await writeFile(file, lines.map((l) => `${l}\n`).join(''));
  }
  await writeFile(
    path.join(project, 'raw', 'release.json'),
    formatJson({ minKappa: 0.9, toolchainRepository: 'https://github.com/junobench/junobench' }),
  );
  await writeFile(path.join(project, '.gitignore'), '/curated/\n/releases/\n/.junobench-cache/\n*.xlsx\n');

  // The new crash: a notebook that reads sales.csv and asks for a column it does not have.
  await mkdir(path.join(work, 'inputs'));
  await writeFile(
    path.join(work, 'inputs', 'crash.ipynb'),
    JSON.stringify(
      makeNotebook([
        { source: 'import pandas as pd', count: 1 },
        { source: "df = pd.read_csv('sales.csv')\ndf.head()", count: 2 },
        { source: "revenue = df['units'] * df['price']", count: 3, error: { ename: 'KeyError', evalue: "'price'" } },
      ]),
    ),
  );
  await writeFile(path.join(work, 'inputs', 'sales.csv'), 'units,cost\n1,2.5\n3,4.0\n2,1.5\n');

  // A real repository with a bare one as origin (a local path: publish calls it out), and the GitHub stand-in.
  remote = path.join(work, 'remote.git');
  execFileSync('git', ['init', '--bare', '-q', remote]);
  git('init', '-q');
  git('config', 'user.name', 'Maintainer');
  git('config', 'user.email', 'maintainer@example.org');
  git('remote', 'add', 'origin', remote);
  git('add', '.');
  git('commit', '-q', '-m', 'the dataset');
  gh = await new GithubReleasesServer().start();
  gh.requireToken = TOKEN;
  env = {
    SOURCE_DATE_EPOCH: '1767225600',
    GITHUB_API_URL: gh.url,
    GITHUB_TOKEN: TOKEN,
    DOCKER_HOST: host,
    // The two embedded instances' verdicts may come from the project's cache; the new one runs.
    JUNOBENCH_CACHE_DIR: path.join(repoRoot, '.junobench-cache'),
  };

  // A tiny stand-in for the benchmark image, recorded as `image build` records one, before publish (the release is
  // verified in the local runtime's sandbox: this image has no Python).
  await buildStandinImage(docker, image, { inImage: '/opt/junobench/runner.txt', content: `${image}\n` });
}, 600_000);

afterAll(async () => {
  await gh?.stop();
  for (const t of [`${REGISTRY}/junobench/benchmark:0.2.0`, image])
    await docker
      ?.getImage(t)
      .remove({ force: true })
      .catch(() => undefined);
  if (work) await rm(work, { recursive: true, force: true });
});

describe("the maintainer's path, as README.md walks it", { timeout: 900_000 }, () => {
  it('add --data: a draft with its data and a draft fix; verify calls it a draft and counts it apart', async () => {
    const add = await step('add ');
    expect(add.code, add.stdout + add.stderr).toBe(0);
    draftId = /^draft (\S+) written to/m.exec(add.stdout)![1]!;
    const dir = path.join(project, 'raw', 'instances', draftId);
    expect(await readFile(path.join(dir, 'data', 'sales.csv'), 'utf8')).toBe('units,cost\n1,2.5\n3,4.0\n2,1.5\n');
    const fixed = JSON.parse(await readFile(path.join(dir, 'fixed.ipynb'), 'utf8')) as {
      cells: { source: string | string[]; metadata: { tags?: string[] } }[];
    };
    expect(fixed.cells[0]!.metadata.tags).toEqual(['junobench-draft-fix']);
    expect(add.stdout).toMatch(/fixed\.ipynb is a draft fix \(the reproduced notebook, marked DRAFT FIX\), not run/);

    const verify = await step('verify --include-drafts');
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(new RegExp(`${draftId}\\s+crash-reproduced\\s+draft-fix\\s.*DRAFT`));
    expect(verify.stdout).toMatch(
      /2\/2 verified, .*; apart from them, 1 draft \(not in the benchmark\): 1 reproducing the crash, fix pending/,
    );

    // By hand: the fix (the column the data has), and the DRAFT FIX cell deleted.
    fixed.cells = fixed.cells
      .filter((c) => !c.metadata.tags?.includes('junobench-draft-fix'))
      .map((c) => ({ ...c, source: [c.source].flat().join('').replace("df['price']", "df['cost']") }));
    await writeFile(path.join(dir, 'fixed.ipynb'), JSON.stringify(fixed, null, 1));
  });

  it('sheets for two annotators, filled by a script and imported into their own files; a second import changes nothing', async () => {
    for (const who of ['annotator-a', 'annotator-b']) {
      const sheet = await step(`labels sheet --annotator ${who}`);
      expect(sheet.code, sheet.stderr).toBe(0);
      expect(sheet.stdout).toContain(`1 instance for ${who} to label (1 draft); suggestions pre-filled in 1 row`);
      expect(sheet.stdout).toContain(`2 already labelled by ${who} left out`);
    }
    await fillSheet(
      path.join(project, 'annotator-a.xlsx'),
      "The sales table has no 'price' column: the revenue needs 'cost'.",
    );
    await fillSheet(path.join(project, 'annotator-b.xlsx'), 'Wrong column name for the price.');
    const before = await readFile(path.join(project, 'raw', 'annotations', 'annotator-b.jsonl'), 'utf8');
    const a = await step('labels import annotator-a.xlsx --annotator annotator-a');
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout).toContain('annotator-a: 1 added, 0 changed, 0 unchanged → raw/annotations/annotator-a.jsonl');
    // annotator-a's import left annotator-b's file as it was.
    expect(await readFile(path.join(project, 'raw', 'annotations', 'annotator-b.jsonl'), 'utf8')).toBe(before);
    const b = await step('labels import annotator-b.xlsx --annotator annotator-b');
    expect(b.code, b.stderr).toBe(0);
    const again = await runJunobench(['labels', 'import', 'annotator-b.xlsx', '--annotator', 'annotator-b'], {
      cwd: project,
      env,
    });
    expect(again.stdout).toContain('annotator-b: nothing changed (1 label already as given)');
  });

  it('agreement over the gate of raw/release.json; the resolved labels make the draft ready', async () => {
    const agreement = await step('labels agreement');
    expect(agreement.code, agreement.stdout + agreement.stderr).toBe(0);
    expect(agreement.stdout).toContain(
      '## Gate: κ ≥ 0.9 (minKappa in raw/release.json)\n\nEvery dimension reaches κ ≥ 0.9.',
    );
    const resolve = await step('labels resolve');
    expect(resolve.code, resolve.stderr).toBe(0);
    const final = resolve.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { instance: string; labels: Record<string, string> })
      .find((f) => f.instance === draftId)!;
    expect(final.labels).toMatchObject({ library: 'pandas', crashType: 'key error' });
    // By hand: the labels into instance.json, "status": "ready"; committed, as publish wants a clean tree.
    const file = path.join(project, 'raw', 'instances', draftId, 'instance.json');
    const instance = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    await writeFile(file, formatJson({ ...instance, status: 'ready', labels: final.labels }));
    // checks.py as add drafted it, mutation-tested alone: the two embedded instances' records in
    // raw/checks-report.json stand, their files unchanged (release prepare below requires all three).
    expect(await readFile(path.join(project, 'raw', 'instances', draftId, 'checks.py'), 'utf8')).toMatch(
      /^def check_/m,
    );
    const checks = await step('checks test <id> --record');
    expect(checks.code, checks.stdout + checks.stderr).toBe(0);
    expect(checks.stdout).toMatch(/mutants rejected \(100\.0%\); 1\/1 instances complete/);
    expect(checks.stdout).toContain('recorded in raw/checks-report.json');
    const record = JSON.parse(await readFile(path.join(project, 'raw', 'checks-report.json'), 'utf8')) as {
      instances: { instance: string }[];
    };
    expect(record.instances.map((i) => i.instance).sort()).toEqual(expect.arrayContaining([...KEPT, draftId]));
    git('add', '-A');
    git('commit', '-q', '-m', `${draftId}: fixed, labelled, ready`);
  });

  it('build: the benchmark holds the new instance; the report shows provenance and the gate', async () => {
    const build = await step('build');
    expect(build.code, build.stdout + build.stderr).toBe(0);
    expect(build.stdout).toMatch(
      /^labels\s+done in .*: 3 instances labelled; .*gate κ ≥ 0\.9 \(minKappa in raw\/release\.json\): passed/m,
    );
    expect(build.stdout).toMatch(/^benchmark\s+done in .*: 3 instances in the benchmark/m);
    const index = await readFile(path.join(project, 'curated', 'report', 'index.html'), 'utf8');
    expect(index).toContain('<h2 id="provenance">Provenance</h2>');
    expect(index).toMatch(/junobench \d+\.\d+\.\d+, commit [0-9a-f]{12}/);
    expect(index).toContain('2026-01-01 00:00 UTC (SOURCE_DATE_EPOCH)');
    expect(index).toContain('class="gate gate-passed"');
  });

  it('release prepare, then release verify', async () => {
    const prepare = await step('release prepare 0.2.0');
    expect(prepare.code, prepare.stdout + prepare.stderr).toBe(0);
    expect(prepare.stdout).toMatch(/release 0\.2\.0: 3 instances \(3 verified, 0 skipped-env\)/);
    const card = await readFile(path.join(project, 'releases', 'junobench-0.2.0', 'README.md'), 'utf8');
    expect(card).toMatch(
      /git clone https:\/\/github\.com\/junobench\/junobench junobench-toolchain && git -C junobench-toolchain checkout --detach [0-9a-f]{40}/,
    );
    expect(card).not.toContain('collected from Kaggle');
    const verify = await step('release verify releases/junobench-0.2.0');
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(
      /^re-run \(local runtime\) of 3 instances: 3 as released \(the outcomes of verification\.json\)$/m,
    );
    expect(verify.stdout).toMatch(/^OK: the release holds/m);
  });

  it('publish: the dry run names the local remote; the tag, the image and the GitHub release go out', async () => {
    const info = await docker.getImage(image).inspect();
    const record: ImageRecord = {
      profile: 'debian',
      tag: image,
      imageId: info.Id,
      size: info.Size,
      recipeHash: 'r'.repeat(64),
      base: 'scratch',
      packages: {},
      modules: {},
      unavailable: {},
    };
    await writeFile(path.join(project, 'curated', 'image.json'), formatJson(record));
    const dry = await step('release publish 0.2.0 --remote origin');
    expect(dry.code, dry.stdout + dry.stderr).toBe(0);
    expect(dry.stdout).toContain(
      `push v0.2.0 to origin (${remote} — a local path on this machine, not a hosted repository)`,
    );
    expect(dry.stderr).toContain(`remote origin is a local path (${remote}), not a hosted repository`);
    expect(git('tag', '--list')).toBe('');

    const publish = await step('release publish 0.2.0 --remote origin');
    expect(publish.code, publish.stdout + publish.stderr).toBe(0);
    expect(publish.stdout).toMatch(/^done\s+image\s+pushed .*junobench\/benchmark@sha256:[0-9a-f]{64}/m);
    expect(publish.stdout).toContain(`pushed v0.2.0 to origin (${remote}`);
    expect(execFileSync('git', ['tag', '--list'], { cwd: remote, encoding: 'utf8' }).trim()).toBe('v0.2.0');
    const release = gh.release('org', 'junobench', 'v0.2.0')!;
    expect(release.assets.map((a) => a.name)).toContain('junobench-0.2.0.tar.gz');
  });

  it("the release's report: its version, toolchain, files with checksums and download links", async () => {
    const report = await step('report --release releases/junobench-0.2.0');
    expect(report.code, report.stdout + report.stderr).toBe(0);
    const index = await readFile(path.join(project, 'releases', 'junobench-0.2.0', 'report', 'index.html'), 'utf8');
    expect(index).toContain('<dd>JunoBench 0.2.0</dd>');
    expect(index).toContain('<h2 id="downloads">Release 0.2.0: downloads and checksums</h2>');
    expect(index).toContain('https://github.com/org/junobench/releases/download/v0.2.0/junobench-0.2.0.tar.gz');
  });

  it('a leaderboard page from scorecards (report --scores), in the same project', async () => {
    // Not the maintainer's path (README, "Score your tool"): detect tasks need no kernel, so this costs little here.
    const cli = (...args: string[]) => runJunobench(args, { cwd: project, env });
    for (const args of [
      ['tasks', 'export', '--task', 'detect', '-o', 'tasks.jsonl'],
      ['baseline', 'oracle', '--tasks', 'tasks.jsonl', '-o', 'oracle.jsonl'],
      ['baseline', 'heuristic', '--tasks', 'tasks.jsonl', '-o', 'heuristic.jsonl'],
      ['score', 'oracle.jsonl', 'heuristic.jsonl', '--tasks', 'tasks.jsonl', '--out', path.join(work, 'compare')],
      ['report', '--scores', path.join(work, 'compare'), '--out', path.join(work, 'board')],
    ]) {
      const r = await cli(...args);
      expect(r.code, `${args.join(' ')}\n${r.stdout}${r.stderr}`).toBe(0);
    }
    const board = await readFile(path.join(work, 'board', 'leaderboard.html'), 'utf8');
    const ranked = [...board.matchAll(/<th scope="row">([a-z]+)<\/th><td class="num"><b>([\d.]+%)<\/b>/g)]
      .slice(0, 2)
      .map((m) => `${m[1]} ${m[2]}`);
    expect(ranked).toEqual(['oracle 100.0%', 'heuristic 50.0%']);
    expect(await readFile(path.join(work, 'board', 'index.html'), 'utf8')).toContain(
      '<a href="leaderboard.html">Leaderboard of tools</a>',
    );
  });

  it("ran every command of the README's walk-through, in its order", () => {
    expect(ran).toEqual(commands);
  });
});
