// Test fixture (container-orphans.container.test.ts): a toolchain process that
// runs one notebook in a container and is then killed with SIGKILL, so none of
// its own clean-up runs. argv: image, instance folder, run id.
import { connectDockerEngine } from '../src/container-engine.js';
import { createContainerRuntime } from '../src/container-runtime.js';

const [image = '', instanceDir = '', id = ''] = process.argv.slice(2);
const docker = await connectDockerEngine(process.env);
const rt = createContainerRuntime({ docker, image, memory: '512m' });
await rt.run([
  { id, instanceDir, notebook: 'notebook.ipynb', cells: [0], cellTimeoutSeconds: 600, timeoutSeconds: 600 },
]);
