import path from 'node:path';
import type Docker from 'dockerode';
import type { Stage } from './run-build.js';

export interface ImageStageOptions {
  instancesDir: string;
  /** Where the image record goes (curated/image.json): the docker runtime reads it. */
  record: string;
  profile?: string;
  dockerDir?: string;
  /** The engine, connected only when the stage runs. */
  docker: () => Promise<Docker>;
}

/**
 * Build the benchmark image for the instances (only with `--runtime docker`):
 * the engine skips it in seconds when the content-hash tag already exists.
 */
export function createImageStage(o: ImageStageOptions): Stage {
  const profile = o.profile ?? 'debian';
  const dockerDir = o.dockerDir ?? 'docker';
  return {
    name: 'image',
    description: `build the benchmark image (${profile} profile) through the Docker Engine API`,
    inputs: [o.instancesDir, path.join(dockerDir, 'profiles')],
    outputs: [o.record],
    params: { profile },
    async run(io) {
      const { buildImage } = await import('@junobench/image');
      const r = await buildImage({
        docker: await o.docker(),
        profile,
        root: io.root,
        instancesDir: io.abs(o.instancesDir),
        dockerDir: io.abs(dockerDir),
        recordFile: io.abs(o.record),
        onProgress: io.onProgress,
      });
      const size = `${(r.size / 1e9).toFixed(2)} GB`;
      return {
        summary: `${r.tag} (${r.imageId.slice(0, 19)}, ${size})${r.skipped ? ', already built' : `, built in ${Math.round(r.buildMs / 1000)} s`} → ${o.record}`,
      };
    },
  };
}
