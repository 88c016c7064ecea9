// A tiny `FROM scratch` image with unique content, for tests that tag, push, pull and publish an image without
// building the real benchmark image. The engine reports a failed build as an `error` event in a stream that
// still ends normally; under load podman has also ended a build without an image and without an event. So the
// build's events are read, the image is looked up afterwards, and a build that left no image is tried again
// once, with the first attempt's output in the error when both fail.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type Docker from 'dockerode';
import { create as createTar } from 'tar';

export interface StandinImage {
  /** The engine's id of the built image. */
  id: string;
  size: number;
}

async function buildOnce(docker: Docker, dir: string, tag: string, files: string[]): Promise<string[]> {
  const output: string[] = [];
  try {
    const stream = await docker.buildImage(
      createTar({ cwd: dir, portable: true }, files) as unknown as NodeJS.ReadableStream,
      { t: tag, rm: true },
    );
    await new Promise<void>((resolve, reject) =>
      docker.modem.followProgress(
        stream,
        (err: Error | null) => (err ? reject(err) : resolve()),
        (e: { stream?: string; error?: string }) => {
          if (e.error) output.push(`error: ${e.error}`);
          else if (e.stream) output.push(e.stream.trimEnd());
        },
      ),
    );
  } catch (e) {
    output.push(`error: ${(e as Error).message}`);
  }
  return output;
}

/**
 * Builds `tag` from `FROM scratch` and one file at `inImage` whose content is `content` (make it unique per
 * run: the registry then sees a manifest it has not seen).
 */
export async function buildStandinImage(
  docker: Docker,
  tag: string,
  file: { inImage: string; content: string },
): Promise<StandinImage> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'junobench-standin-image-'));
  try {
    await writeFile(path.join(dir, 'Dockerfile'), `FROM scratch\nCOPY content.txt ${file.inImage}\n`);
    await writeFile(path.join(dir, 'content.txt'), file.content);
    const attempts: string[][] = [];
    for (let attempt = 0; attempt < 2; attempt++) {
      const output = await buildOnce(docker, dir, tag, ['Dockerfile', 'content.txt']);
      attempts.push(output);
      const info = await docker
        .getImage(tag)
        .inspect()
        .catch(() => null);
      if (info && !output.some((l) => l.startsWith('error: '))) return { id: info.Id, size: info.Size };
    }
    throw new Error(
      `building the stand-in image ${tag} left no image, twice:\n` +
        attempts.map((o, i) => `attempt ${i + 1}:\n  ${o.join('\n  ') || '(no output)'}`).join('\n'),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
