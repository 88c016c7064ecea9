// Lists every module a node process loads, to see what a command pays for at
// start-up (bench/cli-start, test/cli-compiled.e2e.test.ts):
//   JUNOBENCH_TRACE_LOADS=/tmp/loads.txt node --import ./tools/trace-module-loads.mjs packages/cli/bin/junobench.js
//   --help A first line "<time> start", then one line per load: the time (epoch ms), then
// the module's URL (ES modules, through a load hook) or "cjs:" and its file (require()).
// Lines are appended as they happen, from the hooks thread and the main thread.
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';

const out = process.env.JUNOBENCH_TRACE_LOADS;
if (out) {
  register(
    `data:text/javascript,${encodeURIComponent(`
      import { appendFileSync } from 'node:fs';
      let out;
      export function initialize(data) { out = data.out; }
      export async function load(url, context, next) {
        appendFileSync(out, \`\${performance.timeOrigin + performance.now()} \${url}\\n\`);
        return next(url, context);
      }`)}`,
    import.meta.url,
    { data: { out } },
  );
  const load = Module._load;
  Module._load = function (request, parent, ...rest) {
    const loaded = load.call(this, request, parent, ...rest);
    try {
      appendFileSync(
        out,
        `${performance.timeOrigin + performance.now()} cjs:${Module._resolveFilename(request, parent)}\n`,
      );
    } catch {
      // A module that resolves only through a hook: it loaded, its name is beside the point.
    }
    return loaded;
  };
  appendFileSync(out, `${performance.timeOrigin} start\n`);
}
