import path from 'node:path';
import { UnrecoverableError } from 'bullmq';
import { hashInstanceTree, type QueueRunJob } from '@junobench/core';

/**
 * A worker's check of the instance folders jobs ask it to read in place. A
 * job names a folder only under the folder this worker was told to share: the
 * job's own root is anyone's word (whoever reaches Redis can write a job), and
 * a worker never walks a host path because a job said so. Each folder's tree
 * hash is checked once (a failed check is tried again by the next job).
 */
export class SharedFolderCheck {
  private readonly checked = new Map<string, Promise<void>>();

  constructor(
    private readonly worker: string,
    private readonly sharedInstances: string | undefined,
  ) {}

  /** This machine's path of the job's folder, once its tree hash is the coordinator's. */
  resolve(files: QueueRunJob['files']): Promise<string> {
    if (!this.sharedInstances) {
      return Promise.reject(
        new UnrecoverableError(
          `worker ${this.worker} reads no instance folder in place: it was started without --shared-instances ` +
            '(start it with --shared-instances <its mount point of the shared folder>, or run without --shared-instances to send the files)',
        ),
      );
    }
    const dir = path.join(path.resolve(this.sharedInstances), ...files.shared!.path.split('/'));
    const key = `${dir}\0${files.treeHash}`;
    let check = this.checked.get(key);
    if (!check) {
      check = this.check(dir, files);
      this.checked.set(key, check);
      check.catch(() => this.checked.delete(key));
    }
    return check.then(() => dir);
  }

  private check(dir: string, files: QueueRunJob['files']): Promise<void> {
    const shared = files.shared!.path;
    return hashInstanceTree(dir).then(
      (h) => {
        if (h !== files.treeHash) {
          throw new UnrecoverableError(
            `the instance folder ${shared} of the shared folder on worker ${this.worker} differs from the coordinator's (tree hash ${h.slice(0, 12)}… instead of ${files.treeHash.slice(0, 12)}…): ` +
              'the shared folder must be the same on every machine (start the worker with --shared-instances <its mount point>)',
          );
        }
      },
      (e: unknown) => {
        // What went wrong names this machine's files: said here, not sent back through Redis.
        throw Object.assign(
          new UnrecoverableError(
            `the instance folder ${shared} of the shared folder cannot be read on worker ${this.worker}: see that worker's output`,
          ),
          { detail: `${dir}: ${(e as Error).message}` },
        );
      },
    );
  }
}
