import type { Annotation } from '@junobench/core';

/** One annotator's labels so far (their file only), by instance. */
export async function readAnnotationsOf(dir: string, annotator: string): Promise<Map<string, Annotation>> {
  const { readAnnotationFile } = await import('@junobench/labels');
  return (await readAnnotationFile(dir, annotator)).annotations;
}
