// Test fixture (run-folder.kernel.test.ts): a toolchain process that runs one
// notebook through the local runtime and is then killed with SIGKILL, so
// nothing of its own clean-up runs. argv: scratch root, instance folder,
// notebook, and `exit` to end instead with process.exit(130) (what Ctrl-C
// does in the CLI) once the notebook has written `looping` in its scratch copy.
import { readdirSync } from 'node:fs';
import { createLocalRuntime } from '../src/local-runtime.js';

const [scratchRoot = '', instanceDir = '', notebook = 'loop.ipynb', mode = ''] = process.argv.slice(2);
const rt = await createLocalRuntime({ scratchRoot });
if (mode === 'exit') {
  // A walk may meet a file the notebook removes meanwhile: that look says no, the next one answers.
  const looping = (): boolean => {
    try {
      return readdirSync(scratchRoot, { recursive: true }).some((f) => /box\/scratch-[^/]+\/looping$/.test(String(f)));
    } catch {
      return false;
    }
  };
  const timer = setInterval(() => {
    if (looping()) process.exit(130);
  }, 50);
  timer.unref();
}
await rt.run([
  {
    id: 'loop',
    instanceDir,
    notebook,
    cells: [0],
    cellTimeoutSeconds: 300,
    timeoutSeconds: 300,
    prewarm: ['numpy'],
  },
]);
