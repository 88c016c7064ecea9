// @junobench/benchmark: the curated benchmark as data. Named exports only (docs/design.md, "Style").
export { assembleBenchmark, stripBenchmarkCredentials } from './assemble-benchmark.js';
export { formatBenchmarkCsv, BENCHMARK_CSV_COLUMNS } from './format-benchmark-csv.js';
