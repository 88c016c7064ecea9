#!/usr/bin/env node
// Compiles the junobench CLI (packages/cli/src/main.ts and every @junobench
// package it reaches) into plain JavaScript under packages/cli/dist/, so that a
// start does not pay for tsx transpiling hundreds of TypeScript files. Run by
// `npm ci` (the root `prepare` script), `npm test` (`pretest`), `npm run
// build:cli` and `npx nx run cli:build`; a no-op when the current build is up
// to date with the sources (`--force` rebuilds anyway).
//
// What the output keeps as it was in the sources:
// - Lazy imports stay lazy: `await import('@junobench/x')` becomes a separate
//   chunk (code splitting), so a verb loads only what it uses.
// - node_modules stay outside the bundle (imported at run time, as before), so
//   a dependency behaves exactly as under tsx (native addons, CJS interop).
// - `import.meta.url` in a source file is rewritten to that source file's own
//   URL, relative to the chunk it lands in: paths computed from it (schemas/,
//   the Python runner, the toolchain fingerprint of `junobench build`) point
//   where they point when the sources run.
// - Names are kept (`keepNames`): the bundle may rename a clashing identifier,
//   and error classes and messages must not change with it.
//
// The stamp (dist/current.json) records every input's size, mtime and sha256;
// the bin runs the compiled CLI only while they all match the disk
// (packages/cli/bin/compiled-cli.js), and the TypeScript sources through tsx
// otherwise. Builds are written to dist/.tmp-*/ and renamed into place
// (dist/<id>/, id = hash of the inputs), then current.json is replaced
// atomically: a junobench process that is running keeps its own build's files.
//
// Flags: --force (rebuild even when up to date), --warn-only (print a failure
// and exit 0: used at install, where the CLI then runs from its sources).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkCompiledCli, DIST_DIR, REPO_ROOT, STAMP_FILE, STAMP_VERSION } from '../packages/cli/bin/compiled-cli.js';

const ENTRY = path.join(REPO_ROOT, 'packages/cli/src/main.ts');
const SCRIPT = fileURLToPath(import.meta.url);
/**
 * A superseded build is deleted once it has not been current for this long (a running process may still load its
 * chunks).
 */
const KEEP_SUPERSEDED_MS = 60 * 60 * 1000;

const args = process.argv.slice(2);
const force = args.includes('--force');
const warnOnly = args.includes('--warn-only');
const quiet = args.includes('--quiet');

try {
  const t0 = Date.now();
  const before = checkCompiledCli();
  if (before.fresh && !force) {
    if (!quiet) process.stdout.write(`build-cli: up to date (${path.relative(REPO_ROOT, before.entry)})\n`);
  } else {
    const r = await buildCli();
    if (!quiet) {
      process.stdout.write(
        `build-cli: compiled ${r.inputs} source files into ${path.relative(REPO_ROOT, r.entry)} (${r.chunks} chunks, ${(r.bytes / 1e6).toFixed(1)} MB) in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`,
      );
    }
  }
} catch (e) {
  const msg = e?.errors?.length ? e.message : (e?.stack ?? String(e));
  process.stderr.write(`build-cli: could not compile the junobench CLI:\n${msg}\n`);
  if (warnOnly) {
    process.stderr.write(
      'build-cli: the CLI will run from its TypeScript sources (slower start). Fix the error, then `npm run build:cli`.\n',
    );
  } else {
    process.exitCode = 1;
  }
}

// The schemas' validators as compiled code (packages/core/src/compiled-validators.ts): without them every process
// that validates compiles the schemas it uses at run time (about half a second for the instance schema).
try {
  const t0 = Date.now();
  const { tsImport } = await import('tsx/esm/api');
  const core = await tsImport('../packages/core/src/compiled-validators.ts', import.meta.url);
  const notebook = await tsImport('../packages/notebook/src/compiled-nbformat.ts', import.meta.url);
  for (const r of [await core.writeCompiledValidators(), await notebook.writeCompiledNbformat()]) {
    if (!quiet && r.written > 0) {
      process.stdout.write(
        `build-cli: compiled ${r.written} schema validators into ${path.relative(REPO_ROOT, r.dir)} in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`,
      );
    }
  }
} catch (e) {
  process.stderr.write(`build-cli: could not compile the schemas' validators:\n${e?.stack ?? String(e)}\n`);
  if (warnOnly) {
    process.stderr.write('build-cli: each process will compile the schemas it uses instead (slower start).\n');
  } else {
    process.exitCode = 1;
  }
}

async function buildCli() {
  const esbuild = await import('esbuild');
  await mkdir(DIST_DIR, { recursive: true });
  // Same depth as the final dist/<id>/, so relative import.meta.url rewrites hold after the rename.
  const tmp = path.join(DIST_DIR, `.tmp-${process.pid}-${Date.now().toString(36)}`);
  const inputs = new Map(); // repo-relative path → [size, mtimeMs, sha256] of the exact bytes compiled
  // Files that steer the compilation without being modules: tsconfigs, package.json
  // exports, this script. Recorded before the build: a change during it reads as stale.
  for (const f of await listSteeringFiles()) inputs.set(rel(f), snapshot(f, readFileSync(f)));
  try {
    const result = await esbuild.build({
      absWorkingDir: REPO_ROOT,
      entryPoints: { main: ENTRY },
      outdir: tmp,
      entryNames: '[name]',
      chunkNames: 'chunk-[hash]',
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: `node${process.versions.node.split('.')[0]}`,
      keepNames: true,
      sourcemap: 'linked',
      sourcesContent: false,
      metafile: true,
      logLevel: 'silent',
      plugins: [externalDependencies(tmp), sourceLocations(tmp, inputs)],
    });
    const outputs = Object.entries(result.metafile.outputs);
    for (const f of Object.keys(result.metafile.inputs)) {
      if (!inputs.has(f))
        throw new Error(`input ${f} was compiled without being recorded (a loader the build script does not know)`);
    }
    const id = createHash('sha256')
      .update(
        JSON.stringify([
          STAMP_VERSION,
          esbuild.version,
          [...inputs].sort(([a], [b]) => (a < b ? -1 : 1)).map(([f, s]) => [f, s[2]]),
        ]),
      )
      .digest('hex')
      .slice(0, 16);
    const dir = path.join(DIST_DIR, id);
    if (await exists(dir)) {
      // The same sources were compiled before (e.g. an edit undone): reuse that build.
      await rm(tmp, { recursive: true, force: true });
    } else {
      await rename(tmp, dir);
    }
    const previous = readCurrentId();
    const stamp = {
      version: STAMP_VERSION,
      id,
      entry: `${id}/main.js`,
      esbuild: esbuild.version,
      builtAt: new Date().toISOString(),
      inputs: Object.fromEntries([...inputs].sort(([a], [b]) => (a < b ? -1 : 1))),
    };
    const stampTmp = `${STAMP_FILE}.${process.pid}.tmp`;
    await writeFile(stampTmp, `${JSON.stringify(stamp)}\n`);
    await rename(stampTmp, STAMP_FILE);
    const now = new Date();
    if (previous && previous !== id) await utimes(path.join(DIST_DIR, previous), now, now).catch(() => {});
    await pruneSuperseded(id);
    return {
      entry: path.join(dir, 'main.js'),
      inputs: Object.keys(result.metafile.inputs).length,
      chunks: outputs.filter(([f]) => f.endsWith('.js')).length,
      bytes: outputs.filter(([f]) => f.endsWith('.js')).reduce((n, [, o]) => n + o.bytes, 0),
    };
  } catch (e) {
    await rm(tmp, { recursive: true, force: true });
    throw e;
  }
}

/**
 * Bare imports other than our workspace packages stay imports of node_modules,
 * resolved from the source file that makes them, as under tsx: a package that a
 * workspace package has in its own node_modules (another version of ajv in
 * packages/core/node_modules) is imported by its path from the output folder,
 * since a bare name there would find another copy, or none.
 */
function externalDependencies(outdir) {
  return {
    name: 'external-dependencies',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, async (a) => {
        if (a.pluginData?.resolving || a.path.startsWith('@junobench/') || path.isAbsolute(a.path)) return undefined;
        if (a.path.startsWith('node:') || builtinModules.includes(a.path)) return { path: a.path, external: true };
        const name = a.path.startsWith('@') ? a.path.split('/').slice(0, 2).join('/') : a.path.split('/')[0];
        const fromSource = findPackageDir(a.resolveDir, name);
        if (!fromSource) throw new Error(`${rel(a.importer)} imports "${a.path}", which is not installed (npm ci)`);
        if (fromSource === findPackageDir(outdir, name)) return { path: a.path, external: true };
        const r = await build.resolve(a.path, {
          kind: a.kind,
          resolveDir: a.resolveDir,
          importer: a.importer,
          pluginData: { resolving: true },
        });
        if (r.errors.length > 0) throw new Error(`${rel(a.importer)}: cannot resolve "${a.path}": ${r.errors[0].text}`);
        const target = path.relative(outdir, r.path).split(path.sep).join('/');
        return { path: target.startsWith('.') ? target : `./${target}`, external: true };
      });
    },
  };
}

/**
 * The folder node's resolution finds for package `name` starting at `dir` (node_modules of each parent), as a real
 * path.
 */
function findPackageDir(dir, name) {
  for (let d = dir; ; d = path.dirname(d)) {
    const candidate = path.join(d, 'node_modules', name);
    if (existsSync(candidate)) return realpathSync(candidate);
    if (path.dirname(d) === d) return undefined;
  }
}

/**
 * Loads every source file itself: to record the exact bytes compiled (the
 * stamp), and to give `import.meta.url` the source file's location.
 */
function sourceLocations(outdir, inputs) {
  const loaders = { '.ts': 'ts', '.mts': 'ts', '.js': 'js', '.mjs': 'js', '.json': 'json' };
  return {
    name: 'source-locations',
    setup(build) {
      build.onLoad({ filter: /\.(ts|mts|js|mjs|json)$/ }, async (a) => {
        if (a.path.includes(`${path.sep}node_modules${path.sep}`))
          throw new Error(`${a.path}: node_modules are external, not bundled`);
        // Stat before reading: if the file changes in between, the stamp's mtime is the older one and the check hashes
        // it.
        const st = await stat(a.path);
        const bytes = await readFile(a.path);
        inputs.set(rel(a.path), [st.size, st.mtimeMs, createHash('sha256').update(bytes).digest('hex')]);
        let contents = bytes.toString('utf8');
        const unsupported = /\bimport\.meta\.(dirname|filename|resolve)\b/.exec(contents);
        if (unsupported) {
          throw new Error(
            `${rel(a.path)}: ${unsupported[0]} is not rewritten by tools/build-cli.mjs; use fileURLToPath(import.meta.url) (or teach the build script)`,
          );
        }
        if (contents.includes('import.meta.url')) {
          const url = path.relative(outdir, a.path).split(path.sep).map(encodeURIComponent).join('/');
          contents = contents.replaceAll('import.meta.url', `new URL(${JSON.stringify(url)}, import.meta.url).href`);
        }
        return { contents, loader: loaders[path.extname(a.path)] };
      });
    },
  };
}

/** Everything besides the modules that decides what the build emits. */
async function listSteeringFiles() {
  const files = [path.join(REPO_ROOT, 'tsconfig.base.json'), SCRIPT];
  for (const name of await readdir(path.join(REPO_ROOT, 'packages'))) {
    for (const f of ['package.json', 'tsconfig.json']) {
      const file = path.join(REPO_ROOT, 'packages', name, f);
      if (await exists(file)) files.push(file);
    }
  }
  return files;
}

function snapshot(file, bytes) {
  const st = statSync(file);
  return [st.size, st.mtimeMs, createHash('sha256').update(bytes).digest('hex')];
}

function readCurrentId() {
  try {
    return JSON.parse(readFileSync(STAMP_FILE, 'utf8')).id;
  } catch {
    return undefined;
  }
}

/** Deletes builds that stopped being current long ago, and temporary folders of builds that died. */
async function pruneSuperseded(currentId) {
  const now = Date.now();
  for (const name of await readdir(DIST_DIR)) {
    if (name === currentId || name === path.basename(STAMP_FILE) || name.endsWith('.tmp')) continue;
    const dir = path.join(DIST_DIR, name);
    const st = await stat(dir).catch(() => undefined);
    if (st?.isDirectory() && now - st.mtimeMs > KEEP_SUPERSEDED_MS) await rm(dir, { recursive: true, force: true });
  }
}

function rel(file) {
  return path.relative(REPO_ROOT, file).split(path.sep).join('/');
}

async function exists(file) {
  return stat(file).then(
    () => true,
    () => false,
  );
}
