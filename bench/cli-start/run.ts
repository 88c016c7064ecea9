// bench/cli-start: what a `junobench` command pays before its work, for the
// compiled CLI (packages/cli/dist/, made by `npm ci` / `npm run build:cli`)
// against the obvious alternative, the TypeScript sources through tsx, each run
// with `node` and through `npx`, in the same rounds (rows interleaved, so a
// change of load hits every row alike). Rows: `--help`, and `build` with nothing
// to do (its start-up = wall − the duration the build reports for its own work),
// plus `node -e 0` (node's own start, the floor). Wall time and the process
// tree's user+sys CPU time, which is steadier on a shared machine. Also: the
// staleness check the bin makes at every start, and what `--help` and a no-change
// `build` load. Usage:
//   npx tsx bench/cli-start/run.ts [--rounds 7] [--no-build]
// (the first full build of a copy of raw/ takes a few minutes, with kernels.)
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { flag, hasFlag } from '../args.js';
import { writeResults } from '../results-file.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'packages/cli/bin/junobench.js');
const rounds = Number(flag('--rounds', '7'));
const withBuild = !hasFlag('--no-build');

interface Sample {
  wallMs: number;
  cpuMs: number;
  /** For build rows: the duration the build reports for its own work. */
  workMs?: number;
  stdout: string;
}

/** Runs a command under bash, which reports its children's user+sys CPU time (`times`). */
function measure(command: string, env: NodeJS.ProcessEnv, cwd: string): Promise<Sample> {
  const script = `s=$EPOCHREALTIME; ${command} >"$JB_OUT" 2>&1; rc=$?; e=$EPOCHREALTIME; echo "$s $e $rc"; times`;
  return new Promise((resolve, reject) => {
    const out = path.join(os.tmpdir(), `jb-cli-start-${process.pid}.out`);
    execFile(
      'bash',
      ['-c', script],
      { cwd, env: { ...process.env, CI: '1', ...env, JB_OUT: out } },
      async (error, stdout) => {
        if (error) return reject(error);
        const [line, , children] = stdout.trim().split('\n');
        const [s, e, rc] = line!.split(' ');
        const text = await readFile(out, 'utf8');
        if (rc !== '0') return reject(new Error(`${command} exited ${rc}:\n${text}`));
        const cpu = [...children!.matchAll(/(\d+)m([\d.]+)s/g)].reduce(
          (n, m) => n + Number(m[1]) * 60_000 + Number(m[2]) * 1000,
          0,
        );
        const work = /build complete: .*?, ((?:\d+ min )?[\d.]+ (?:ms|s)) → /.exec(text)?.[1];
        resolve({
          wallMs: (Number(e) - Number(s)) * 1000,
          cpuMs: cpu,
          ...(work ? { workMs: parseDuration(work) } : {}),
          stdout: text,
        });
      },
    );
  });
}

function parseDuration(text: string): number {
  const m = /^(?:(\d+) min )?([\d.]+) (ms|s)$/.exec(text)!;
  return Number(m[1] ?? 0) * 60_000 + Number(m[2]) * (m[3] === 'ms' ? 1 : 1000);
}

async function main() {
  const built = await measure(`node ${path.join(root, 'tools/build-cli.mjs')}`, {}, root);
  console.log(built.stdout.trim());
  let work = root;
  let scratch: string | undefined;
  if (withBuild) {
    scratch = await mkdtemp(path.join(os.tmpdir(), 'jb-bench-cli-start-'));
    work = scratch;
    await cp(path.join(root, 'raw'), path.join(work, 'raw'), { recursive: true });
    console.log('first build of a copy of raw/ (kernels; a few minutes)…');
    const first = await measure(`node ${bin} build --cache-dir cache`, {}, work);
    console.log(`  done in ${(first.wallMs / 1000).toFixed(1)} s`);
  }

  const rows: { label: string; command: string; env: NodeJS.ProcessEnv; build?: boolean; verify?: boolean }[] = [
    { label: 'node -e 0 (the floor)', command: 'node -e 0', env: {} },
    { label: '`node bin --help`, compiled', command: `node ${bin} --help`, env: { JUNOBENCH_CLI: 'compiled' } },
    { label: '`node bin --help`, tsx', command: `node ${bin} --help`, env: { JUNOBENCH_CLI: 'tsx' } },
    { label: '`npx junobench --help`, compiled', command: 'npx junobench --help', env: { JUNOBENCH_CLI: 'compiled' } },
    { label: '`npx junobench --help`, tsx', command: 'npx junobench --help', env: { JUNOBENCH_CLI: 'tsx' } },
  ];
  if (withBuild) {
    rows.push(
      {
        label: '`node bin build` (nothing to do), compiled',
        command: `node ${bin} build --cache-dir cache`,
        env: { JUNOBENCH_CLI: 'compiled' },
        build: true,
      },
      {
        label: '`node bin build` (nothing to do), tsx',
        command: `node ${bin} build --cache-dir cache`,
        env: { JUNOBENCH_CLI: 'tsx' },
        build: true,
      },
      {
        label: '`npx junobench build` (nothing to do), compiled',
        command: `npx --prefix ${root} junobench build --cache-dir cache`,
        env: { JUNOBENCH_CLI: 'compiled' },
        build: true,
      },
      {
        label: '`npx junobench build` (nothing to do), tsx',
        command: `npx --prefix ${root} junobench build --cache-dir cache`,
        env: { JUNOBENCH_CLI: 'tsx' },
        build: true,
      },
      // verify with every result cached still asks the interpreter which modules it has (the runtime identity is
      // part of the cache key): from the probe cache, or by importing them.
      {
        label: '`node bin verify` (all cached), probe cache kept',
        command: `XDG_CACHE_HOME=${path.join(work, 'xdg')} node ${bin} verify --cache-dir cache`,
        env: { JUNOBENCH_CLI: 'compiled' },
        verify: true,
      },
      {
        label: '`node bin verify` (all cached), no probe cache',
        command: `XDG_CACHE_HOME=$(mktemp -d) node ${bin} verify --cache-dir cache`,
        env: { JUNOBENCH_CLI: 'compiled' },
        verify: true,
      },
      // The JSON Schema validators (instance, notebook, results …) compiled by each process instead of loaded as the
      // code tools/build-cli.mjs compiled (packages/core/src/compiled-code.ts).
      {
        label: '`node bin verify` (all cached), probe cache kept, validators compiled at run time',
        command: `XDG_CACHE_HOME=${path.join(work, 'xdg')} node ${bin} verify --cache-dir cache`,
        env: { JUNOBENCH_CLI: 'compiled', JUNOBENCH_COMPILED_CODE: '0' },
        verify: true,
      },
      {
        label: '`node bin build` (nothing to do), compiled, validators compiled at run time',
        command: `node ${bin} build --cache-dir cache`,
        env: { JUNOBENCH_CLI: 'compiled', JUNOBENCH_COMPILED_CODE: '0' },
        build: true,
      },
    );
  }
  const samples = new Map<string, Sample[]>(rows.map((r) => [r.label, []]));
  const loads: number[] = [];
  const loadStart = os.loadavg();
  for (let r = 0; r < rounds; r++) {
    for (const row of rows) {
      const s = await measure(row.command, row.env, row.build || row.verify ? work : root);
      if (row.build && !/0 stage\(s\) ran/.test(s.stdout))
        throw new Error(`${row.label}: the build had work to do:\n${s.stdout}`);
      // Every verified row of the table says "cached" (the skipped one has no time).
      if (
        row.verify &&
        [...s.stdout.matchAll(/^\S+\s+crash-reproduced\s+fixed-ok\s+(\S+)/gm)].some((m) => m[1] !== 'cached')
      )
        throw new Error(`${row.label}: verify ran notebooks:\n${s.stdout}`);
      samples.get(row.label)!.push(s);
    }
    loads.push(os.loadavg()[0]!);
    console.log(`round ${r + 1}/${rounds} done (load ${os.loadavg()[0]!.toFixed(1)})`);
  }

  const check = await measureStalenessCheck();
  const traced = {
    help: await traceLoads(['--help'], root),
    ...(withBuild ? { build: await traceLoads(['build', '--cache-dir', 'cache'], work) } : {}),
  };

  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const spread = (xs: number[]) => `${s(median(xs))} [${s(Math.min(...xs))}–${s(Math.max(...xs))}]`;
  const lines = [
    '# bench/cli-start',
    '',
    `${os.availableParallelism()} CPUs, ${rounds} rounds (rows interleaved in each round), ${new Date().toISOString().slice(0, 10)}; load average ${loadStart.map((x) => x.toFixed(1)).join(' ')} at the start, ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} during the rounds.`,
    'Median [min–max] over the rounds. "CPU" = user+sys of the whole process tree (steadier than wall on a shared machine). For `build` with nothing to do, "start-up" = wall − the duration the build reports for its own work.',
    '',
    '| command | wall | CPU | start-up (build) |',
    '|---|---:|---:|---:|',
  ];
  for (const row of rows) {
    const xs = samples.get(row.label)!;
    lines.push(
      `| ${row.label} | ${spread(xs.map((x) => x.wallMs))} | ${spread(xs.map((x) => x.cpuMs))} | ${row.build ? spread(xs.map((x) => x.wallMs - x.workMs!)) : '—'} |`,
    );
  }
  const ratio = (a: string, b: string, key: 'wallMs' | 'cpuMs') => {
    const xs = samples.get(a)!;
    const ys = samples.get(b)!;
    const rs = xs.map((x, i) => x[key] / ys[i]![key]);
    return `${median(rs).toFixed(2)}× [${Math.min(...rs).toFixed(2)}–${Math.max(...rs).toFixed(2)}]`;
  };
  lines.push('', 'Ratios within each round (median [min–max]):', '', '| ratio | wall | CPU |', '|---|---:|---:|');
  const pairs: [string, string, string][] = [
    ['tsx ÷ compiled, `node bin --help`', rows[2]!.label, rows[1]!.label],
    ['tsx ÷ compiled, `npx junobench --help`', rows[4]!.label, rows[3]!.label],
    ['npx ÷ node, `--help` compiled', rows[3]!.label, rows[1]!.label],
    ['npx ÷ node, `--help` tsx', rows[4]!.label, rows[2]!.label],
  ];
  if (withBuild) {
    pairs.push(
      ['tsx ÷ compiled, `node bin build`', rows[6]!.label, rows[5]!.label],
      ['tsx ÷ compiled, `npx junobench build`', rows[8]!.label, rows[7]!.label],
      ['npx ÷ node, `build` compiled', rows[7]!.label, rows[5]!.label],
      ['no probe cache ÷ probe cache kept, `node bin verify` (all cached)', rows[10]!.label, rows[9]!.label],
      ['validators compiled at run time ÷ at build, `node bin verify` (all cached)', rows[11]!.label, rows[9]!.label],
      ['validators compiled at run time ÷ at build, `node bin build`', rows[12]!.label, rows[5]!.label],
    );
  }
  for (const [label, a, b] of pairs) lines.push(`| ${label} | ${ratio(a, b, 'wallMs')} | ${ratio(a, b, 'cpuMs')} |`);
  lines.push(
    '',
    `Staleness check (the bin, at every start: stat ${check.inputs} recorded inputs, hash only those whose mtime moved): ${check.firstMs.toFixed(1)} ms for the first call in a fresh process (median of ${check.runs}), ${check.warmMs.toFixed(2)} ms per call after; ${check.touchedMs.toFixed(1)} ms when every input's mtime moved (a checkout: all hashed).`,
    '',
    'Modules loaded by the compiled CLI (ES modules and require() calls, node: built-ins left out):',
    '',
    ...Object.entries(traced).map(
      ([k, t]) =>
        `- \`${k === 'help' ? '--help' : 'build'}\`${k === 'build' ? ' (nothing to do)' : ''}: ${t.count} files from ${t.packages.length} packages${t.heavy.length ? `; heavy: ${t.heavy.join(', ')}` : '; nothing heavy'}.`,
    ),
    '',
  );
  const text = lines.join('\n');
  await writeResults(path.join(root, 'bench/cli-start/results.md'), text);
  console.log(text);
  if (scratch) await rm(scratch, { recursive: true, force: true });
}

/** The bin's staleness check, in fresh processes (first call) and warm; and with every input's mtime moved. */
async function measureStalenessCheck() {
  const mod = path.join(root, 'packages/cli/bin/compiled-cli.js');
  const code = `const t0 = performance.now(); const { checkCompiledCli } = await import(${JSON.stringify(mod)}); const t1 = performance.now(); const r = checkCompiledCli(); const t2 = performance.now();
    for (let i = 0; i < 50; i++) checkCompiledCli(); const t3 = performance.now();
    const stamp = JSON.parse((await import('node:fs')).readFileSync(${JSON.stringify(path.join(root, 'packages/cli/dist/current.json'))}, 'utf8'));
    for (const v of Object.values(stamp.inputs)) v[1] = 0;
    const fake = (await import('node:path')).join(${JSON.stringify(path.join(root, 'packages/cli/dist'))}, '.bench-stamp.json');
    (await import('node:fs')).writeFileSync(fake, JSON.stringify(stamp)); const t4 = performance.now(); const r2 = checkCompiledCli(fake); const t5 = performance.now(); (await import('node:fs')).rmSync(fake);
    console.log(JSON.stringify({ fresh: r.fresh && r2.fresh, inputs: Object.keys(stamp.inputs).length, first: t2 - t1, warm: (t3 - t2) / 50, touched: t5 - t4 }));`;
  const runs = 7;
  const xs: { fresh: boolean; inputs: number; first: number; warm: number; touched: number }[] = [];
  for (let i = 0; i < runs; i++) {
    const out = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['--input-type=module', '-e', code], (e, stdout, stderr) =>
        e ? reject(new Error(stderr)) : resolve(stdout),
      ),
    );
    xs.push(JSON.parse(out));
  }
  if (!xs.every((x) => x.fresh)) throw new Error('the compiled CLI went stale during the bench (sources edited?)');
  return {
    runs,
    inputs: xs[0]!.inputs,
    firstMs: median(xs.map((x) => x.first)),
    warmMs: median(xs.map((x) => x.warm)),
    touchedMs: median(xs.map((x) => x.touched)),
  };
}

const HEAVY = [
  'dockerode',
  'exceljs',
  'sharp',
  'vega',
  'vega-lite',
  '@octokit/rest',
  'simple-git',
  'bullmq',
  'ioredis',
  'playwright-core',
  'execa',
  'tar',
  'yauzl',
  'csv-parse',
  'semver',
];

/** What the compiled CLI loads for one command (tools/trace-module-loads.mjs). */
async function traceLoads(args: string[], cwd: string) {
  const out = path.join(os.tmpdir(), `jb-cli-start-loads-${process.pid}.txt`);
  await rm(out, { force: true });
  await new Promise<void>((resolve, reject) =>
    execFile(
      process.execPath,
      ['--import', path.join(root, 'tools/trace-module-loads.mjs'), bin, ...args],
      { cwd, env: { ...process.env, CI: '1', JUNOBENCH_CLI: 'compiled', JUNOBENCH_TRACE_LOADS: out } },
      (e) => (e ? reject(e) : resolve()),
    ),
  );
  const files = new Set(
    (await readFile(out, 'utf8'))
      .split('\n')
      .slice(1)
      .map((l) => l.slice(l.indexOf(' ') + 1))
      .filter((u) => u && !/^(cjs:)?(node:)?[a-z_]+$/.test(u) && !u.startsWith('node:') && !u.startsWith('cjs:node:')),
  );
  await rm(out, { force: true });
  const packages = new Set([...files].map((f) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(f)?.[1] ?? '(junobench)'));
  return { count: files.size, packages: [...packages], heavy: HEAVY.filter((h) => packages.has(h)) };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

await main();
