// vitest's setupFiles for the `containers` project (vitest.config.ts): before each container test file, wait for the
// benchmark image that test/containers-global-setup.ts builds in the background, and hand its tag to the file as
// JUNOBENCH_TEST_IMAGE. A failed build fails every container file with the build's own output.
import { readFile } from 'node:fs/promises';
import type { TestImageStatus } from './containers-global-setup.js';

/** Longer than any image build seen here (under 7 minutes on a fresh machine); past it, the build is taken as hung. */
const WAIT_LIMIT_MS = 40 * 60_000;

async function waitForTestImage(statusFile: string): Promise<string> {
  const deadline = Date.now() + WAIT_LIMIT_MS;
  for (;;) {
    let text: string | undefined;
    try {
      text = await readFile(statusFile, 'utf8');
    } catch {
      // not written yet: the build is still running
    }
    if (text !== undefined) {
      const status = JSON.parse(text) as TestImageStatus;
      if ('error' in status) throw new Error(status.error);
      return status.tag;
    }
    if (Date.now() > deadline) {
      throw new Error(`the container tests' image was not built within ${WAIT_LIMIT_MS / 60_000} minutes`);
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

const statusFile = process.env.JUNOBENCH_TEST_IMAGE_STATUS;
if (!process.env.JUNOBENCH_TEST_IMAGE && statusFile) {
  process.env.JUNOBENCH_TEST_IMAGE = await waitForTestImage(statusFile);
}
