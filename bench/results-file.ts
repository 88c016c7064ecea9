import { readFile, writeFile } from 'node:fs/promises';

/** Where a results.md's readings written by hand begin: what follows outlives a new run of the bench. */
export const HAND_MARK = '<!-- readings by hand below: kept when run.ts rewrites the tables above -->';

/** Writes a bench's generated tables over `file`, keeping its readings by hand (after HAND_MARK). */
export async function writeResults(file: string, text: string): Promise<void> {
  const old = await readFile(file, 'utf8').catch(() => '');
  const kept = old.includes(HAND_MARK) ? old.slice(old.indexOf(HAND_MARK)) : `${HAND_MARK}\n`;
  await writeFile(file, `${text.endsWith('\n') ? text : `${text}\n`}\n${kept}`);
}
