// A project folder for the label-sheet tests: instances (one draft with suggestions, two labelled ones) and
// annotators' files, in a temporary folder.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export const LABELS = {
  library: 'pandas',
  crashType: 'key error',
  rootCause: 'API misuse',
  pipelineStage: 'data preparation',
} as const;

export interface LabelProject {
  root: string;
  instancesDir: string;
  annotationsDir: string;
}

function instance(id: string, draft: boolean): object {
  return {
    id,
    source: { platform: 'local', datasets: [] },
    crash: { ename: 'KeyError', evalue: "'price'\u001b[0m", match: 'exact', cell: 2 },
    execution: { order: 'file' },
    requires: ['pandas'],
    ...(draft
      ? {
          status: 'draft',
          suggestedLabels: {
            library: { value: 'pandas', confidence: 0.8, evidence: ['the traceback ends in pandas'] },
            crashType: { value: 'key error', confidence: 0.9, evidence: ['KeyError'] },
            rootCause: { value: 'data confusion', confidence: 0.5, evidence: ['a column name'] },
          },
        }
      : { labels: { ...LABELS } }),
  };
}

export async function writeLabelProject(): Promise<LabelProject> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'jb-label-sheet-'));
  const instancesDir = path.join(root, 'raw', 'instances');
  const annotationsDir = path.join(root, 'raw', 'annotations');
  for (const [id, draft] of [
    ['pandas_1', false],
    ['pandas_2', false],
    ['pandas_9', true],
  ] as const) {
    await mkdir(path.join(instancesDir, id), { recursive: true });
    await writeFile(path.join(instancesDir, id, 'instance.json'), JSON.stringify(instance(id, draft)));
  }
  await mkdir(annotationsDir, { recursive: true });
  await writeFile(
    path.join(annotationsDir, 'bob.jsonl'),
    `${JSON.stringify({ instance: 'pandas_1', annotator: 'bob', ...LABELS })}\n`,
  );
  await writeFile(
    path.join(annotationsDir, 'alice.jsonl'),
    `${JSON.stringify({ instance: 'pandas_1', annotator: 'alice', ...LABELS })}\n`,
  );
  await mkdir(path.join(root, 'curated', 'report', 'instances'), { recursive: true });
  await writeFile(path.join(root, 'curated', 'report', 'instances', 'pandas_9.html'), '<!DOCTYPE html>');
  return { root, instancesDir, annotationsDir };
}
