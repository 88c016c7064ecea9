// Test fixture (run-folder.kernel.test.ts): a toolchain process that runs one
// notebook through the local runtime and is then killed with SIGKILL, so
// nothing of its own clean-up runs. argv: scratch root, instance folder.
import { createLocalRuntime } from '../src/local-runtime.js';

const [scratchRoot = '', instanceDir = ''] = process.argv.slice(2);
const rt = await createLocalRuntime({ scratchRoot });
await rt.run([
  {
    id: 'loop',
    instanceDir,
    notebook: 'loop.ipynb',
    cells: [0],
    cellTimeoutSeconds: 300,
    timeoutSeconds: 300,
    prewarm: ['numpy'],
  },
]);
