// Test fixture (container-orphans.container.test.ts): a toolchain process that
// runs one notebook in a container and is then killed with SIGKILL, so none of
// its own clean-up runs. Beside it, once the run has begun, a container of this
// process that ignores its stdin (as the image probe's does): only the owner's
// watchdog can end that one. argv: image, instance folder, run id.
import { connectDockerEngine } from '../src/container-engine.js';
import { OWNER_LABEL, createContainerRuntime } from '../src/container-runtime.js';
import { currentOwner } from '../src/run-folder.js';

const [image = '', instanceDir = '', id = ''] = process.argv.slice(2);
const docker = await connectDockerEngine(process.env);
// Fresh containers: each notebook's container is what is left behind (a slot's goes the same way, by the same watchdog).
const rt = createContainerRuntime({ docker, image, memory: '512m', fork: false });
const running = rt.run([
  { id, instanceDir, notebook: 'notebook.ipynb', cells: [0], cellTimeoutSeconds: 600, timeoutSeconds: 600 },
]);
const deaf = await docker.createContainer({
  Image: image,
  Cmd: ['sleep', '600'],
  Labels: { [OWNER_LABEL]: currentOwner(), 'org.junobench.run': `${id}-deaf` },
  HostConfig: { NetworkMode: 'none' },
});
await deaf.start();
await running;
