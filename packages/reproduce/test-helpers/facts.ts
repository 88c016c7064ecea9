// Test helper: CellFacts as the analyser reports them, with only the fields a test names.
import type { CellFacts } from '../src/analyze-cells.js';

export function cellFacts(index: number, over: Partial<CellFacts> = {}): CellFacts {
  return {
    index,
    parsed: true,
    defines: [],
    undefined: [],
    undefinedNow: over.undefinedNow ?? over.undefined ?? [],
    loads: [],
    imports: [],
    shell: [],
    urls: [],
    reads: [],
    writes: [],
    paths: [],
    literals: [],
    gpu: [],
    star: false,
    magics: [],
    ...over,
  };
}
