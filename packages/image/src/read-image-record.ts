import { JunoError, readJsonFile, type ImageRecord } from '@junobench/core';

/**
 * curated/image.json as `junobench image build` wrote it (validated), e.g. to
 * find the image tag for `verify --runtime docker`.
 */
export async function readImageRecord(file: string): Promise<ImageRecord> {
  try {
    return await readJsonFile<ImageRecord>(file, { schema: 'image-record' });
  } catch (e) {
    if (e instanceof JunoError && e.code === 'E_INPUT_NOT_FOUND') {
      throw new JunoError('E_ENV_ENGINE', 'no benchmark image recorded yet', {
        location: { file },
        hint: 'build it with `junobench image build` (or pass --image <tag>)',
        cause: e,
      });
    }
    throw e;
  }
}
