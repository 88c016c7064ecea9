// `npm run lint:workflows`: every GitHub Actions workflow under .github/workflows checked against the workflow
// schema by action-validator (@action-validator/cli, from npm). Exit 1 naming each file that fails, with the
// validator's errors. test/workflows.test.ts runs it in the suite.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const validator = path.join(path.dirname(require.resolve('@action-validator/cli/package.json')), 'cli.mjs');
const dir = '.github/workflows';
const files = readdirSync(dir)
  .filter((f) => /\.ya?ml$/.test(f))
  .sort()
  .map((f) => path.join(dir, f));
let failed = 0;
for (const file of files) {
  try {
    execFileSync(process.execPath, [validator, file], { stdio: ['ignore', 'pipe', 'pipe'] });
    console.log(`ok  ${file}`);
  } catch (e) {
    failed++;
    console.error(`FAIL ${file}\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}
if (files.length === 0) {
  console.error(`no workflow in ${dir}`);
  failed++;
}
process.exitCode = failed > 0 ? 1 : 0;
