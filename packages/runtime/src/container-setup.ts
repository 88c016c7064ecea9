import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Docker from 'dockerode';
import { JunoError } from '@junobench/core';
import { engineMessage, statusOf } from './container-exec.js';
import { readEngineKind } from './container-engine.js';
import type { ContainerRunSettings } from './container-sandbox.js';
import { createRunFolder, sweepStaleRunFolders, type RunFolder } from './run-folder.js';
import { formatSeccompProfile, planSeccompProfile } from './seccomp-profile.js';

/**
 * What a container runtime makes ready once, before its first container: the
 * image's id (the whole environment), the removal of containers a killed
 * toolchain left behind, and the seccomp profile in the form its engine takes.
 * Each is done once and, when it fails, tried again at the next call.
 */
export class ContainerSetup {
  private imageId: Promise<string> | undefined;
  private swept: Promise<void> | undefined;
  private seccompReady: Promise<void> | undefined;
  private profileFolder: RunFolder | undefined;

  constructor(
    private readonly docker: Docker,
    private readonly image: string,
    /** Where the profile goes once ready (`seccomp`). */
    private readonly settings: ContainerRunSettings,
    private readonly removeStale: (docker: Docker) => Promise<unknown>,
  ) {}

  resolveImageId(): Promise<string> {
    this.imageId ??= this.docker
      .getImage(this.image)
      .inspect()
      .then(
        (info) => info.Id,
        (e: unknown) => {
          this.imageId = undefined;
          throw this.imageError(e);
        },
      );
    return this.imageId;
  }

  /** Containers a killed toolchain left behind (created and never started, or still running) go first. */
  sweep(): Promise<void> {
    return (this.swept ??= this.removeStale(this.docker).then(() => undefined));
  }

  /** Every container gets our seccomp profile (seccomp-profile.ts: no namespaces), in the form its engine takes. */
  prepareSeccomp(): Promise<void> {
    this.seccompReady ??= readEngineKind(this.docker).then((kind) => {
      this.settings.engine = kind;
      const nesting = formatSeccompProfile(planSeccompProfile({ nesting: true }));
      if (kind === 'docker') {
        // Docker's API takes the profile itself (its CLI reads the file and sends the text).
        this.settings.seccomp = formatSeccompProfile();
        this.settings.seccompNesting = nesting;
        return;
      }
      // Podman's (4.x and later) takes a path on the engine's host, read when the container is created:
      // the file lives in this runtime's run folder until close().
      sweepStaleRunFolders(os.tmpdir());
      this.profileFolder = createRunFolder(os.tmpdir());
      const file = path.join(this.profileFolder.dir, 'seccomp.json');
      writeFileSync(file, formatSeccompProfile(), { mode: 0o644 });
      this.settings.seccomp = file;
      const nestingFile = path.join(this.profileFolder.dir, 'seccomp-nesting.json');
      writeFileSync(nestingFile, nesting, { mode: 0o644 });
      this.settings.seccompNesting = nestingFile;
    });
    this.seccompReady.catch(() => (this.seccompReady = undefined));
    return this.seccompReady;
  }

  /** The profile's file goes (the runtime closes); a later container prepares it again. */
  release(): void {
    this.profileFolder?.remove();
    this.profileFolder = undefined;
    this.seccompReady = undefined;
  }

  private imageError(e: unknown): JunoError {
    return statusOf(e) === 404
      ? new JunoError('E_ENV_ENGINE', `image ${this.image} is not in the container engine`, {
          hint: 'build it with `junobench image build --profile debian` (it prints the tag), or pass the tag of an image that exists',
          cause: e,
        })
      : new JunoError('E_ENV_ENGINE', `cannot inspect image ${this.image}: ${engineMessage(e)}`, {
          hint: 'check that the engine at DOCKER_HOST answers (`sh tools/setup-engine.sh` starts one)',
          cause: e,
        });
  }
}
