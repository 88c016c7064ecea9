// Test helper: small nbformat 4 notebooks with saved outputs, as a Jupyter
// session leaves them (execution counts, stream and error outputs).

export interface CellSpec {
  source: string;
  /** Saved execution count; null = never run. */
  count?: number | null;
  /** A saved error output. */
  error?: { ename: string; evalue: string; traceback?: string[] };
  stdout?: string;
  markdown?: boolean;
}

export function makeNotebook(cells: CellSpec[], metadata: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {
      kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' },
      language_info: { name: 'python' },
      ...metadata,
    },
    cells: cells.map((c, i) => {
      if (c.markdown) return { cell_type: 'markdown', id: `m${i}`, metadata: {}, source: c.source };
      const outputs: unknown[] = [];
      if (c.stdout) outputs.push({ output_type: 'stream', name: 'stdout', text: c.stdout });
      if (c.error) {
        outputs.push({
          output_type: 'error',
          ename: c.error.ename,
          evalue: c.error.evalue,
          traceback: c.error.traceback ?? [
            '\u001b[0;31m---------------------------------------------------------------------------\u001b[0m',
            `\u001b[0;31m${c.error.ename}\u001b[0m                                  Traceback (most recent call last)`,
            `Cell \u001b[0;32mIn[${c.count ?? ' '}], line 1\u001b[0m\n\u001b[0;32m----> 1\u001b[0m ${c.source.split('\n')[0]}`,
            `\u001b[0;31m${c.error.ename}\u001b[0m: ${c.error.evalue}`,
          ],
        });
      }
      return {
        cell_type: 'code',
        id: `c${i}`,
        metadata: {},
        execution_count: c.count === undefined ? i + 1 : c.count,
        source: c.source,
        outputs,
      };
    }),
  };
}
