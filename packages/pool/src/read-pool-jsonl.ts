import { JunoError, isJunoError, readJsonl, type CrashRecord, type JsonlLine } from '@junobench/core';

/**
 * The records of a pool file as `pool import` writes it (one CrashRecord per line).
 * A line that is no CrashRecord is bad input naming the file and line, as readJsonl
 * says; the hint adds that a sheet, or a sheet's rows as JSON lines
 * (benchmark_desc.jsonl), is imported first — the schema alone does not say so.
 */
export async function* readPoolJsonl(file: string): AsyncGenerator<JsonlLine<CrashRecord>> {
  try {
    for await (const item of readJsonl<CrashRecord>(file, { schema: 'crash-record' })) yield item;
  } catch (e) {
    if (!isJunoError(e) || e.code !== 'E_SCHEMA') throw e;
    throw new JunoError(e.code, e.message, {
      ...(e.location ? { location: e.location } : {}),
      exitCode: e.exitCode,
      hint: `a pool holds CrashRecords as \`junobench pool import\` writes them (schemas/crash-record.schema.json); import a sheet or its rows as JSON lines first: junobench pool import ${file} -o pool.jsonl`,
      cause: e,
    });
  }
}
