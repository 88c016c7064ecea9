// Test-only (test/cli-compiled.e2e.test.ts): prints, as JSON, the help of every
// command of a junobench checkout, from its compiled CLI or from its sources
// through tsx — one process for all of them, instead of one per command.
// Plain JavaScript, so that the compiled mode runs without tsx.
// Usage: node test/cli-help-all.mjs <checkout root> compiled|tsx
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [root, mode] = process.argv.slice(2);
let cli;
if (mode === 'compiled') {
  const { checkCompiledCli } = await import(pathToFileURL(path.join(root, 'packages/cli/bin/compiled-cli.js')).href);
  const compiled = checkCompiledCli();
  if (!compiled.fresh) throw new Error(`no fresh compiled CLI in ${root}: ${compiled.reason}`);
  cli = await import(pathToFileURL(compiled.entry).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  cli = await import(pathToFileURL(path.join(root, 'packages/cli/src/main.ts')).href);
}

function createContext() {
  const out = [];
  const err = [];
  const progress = () => Object.assign(() => undefined, { done: () => undefined });
  return {
    cwd: root,
    env: { ...process.env, CI: '1' },
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    interactive: false,
    progress,
    exitCode: 0,
    stdout: out,
    stderr: err,
  };
}

/** Every command path: [], ['pool'], ['pool', 'import'], … (aliases not repeated). */
function commandPaths(cmd, prefix = []) {
  return [prefix, ...cmd.commands.flatMap((c) => commandPaths(c, [...prefix, c.name()]))];
}

const paths = commandPaths(cli.createProgram(createContext()));
const helps = [];
for (const p of paths) {
  const ctx = createContext();
  const code = await cli.main([...p, '--help'], ctx);
  helps.push({ command: p.join(' '), code, stdout: ctx.stdout.join('\n'), stderr: ctx.stderr.join('\n') });
}
process.stdout.write(JSON.stringify(helps));
