export { parseSubsampleSpec, normalizeDataPath, STEP_METHODS } from './spec.js';
export { PANDAS_NA_VALUES, isMissingValue } from './missing-values.js';
export { allocateQuotas, StratifiedSelector, sampleByGroup, fractionOf } from './select-rows.js';
export { compileRowFilters } from './row-filter.js';
export type { RowPredicate } from './row-filter.js';
export { detectCsvFormat, readCsvRecords, CsvWriter } from './csv-io.js';
export type { CsvFormat } from './csv-io.js';
export { sampleTable } from './sample-table.js';
export type { SampleTableOptions, TableSampleReport, ColumnMissingShare } from './sample-table.js';
export { reencodeImage } from './reencode-image.js';
export type { ReencodeOptions, ReencodeResult, SharpFactory } from './reencode-image.js';
export { sampleImages, classOfImage, isImagePath, IMAGE_EXTENSIONS, runPool } from './sample-images.js';
export type { SampleImagesOptions, ImageSampleReport, CorruptImage } from './sample-images.js';
export { ImageReferenceIndex, filterIndexFile, createSidecarMatcher } from './filter-index-files.js';
export type { IndexFileReport } from './filter-index-files.js';
export { sampleArchive, planArchiveSample, groupOfEntry } from './sample-archive.js';
export type { SampleArchiveOptions, ArchiveSampleReport } from './sample-archive.js';
export { profileTable, synthesizeTable, generateRows, scrambleText } from './synthesize-table.js';
export type {
  ColumnKind,
  ColumnProfile,
  TableProfile,
  SynthesizeTableOptions,
  SyntheticTableReport,
} from './synthesize-table.js';
export { generateSource, retailSalesGenerator, SOURCE_GENERATORS } from './generate-source.js';
export type { SourceGenerator, GeneratedSource } from './generate-source.js';
export { subsampleData, stepSeed } from './subsample-data.js';
export type { SubsampleDataOptions, SubsampleDataReport, StepReport } from './subsample-data.js';
export { regenerateInstanceData, resolveSubsampleSource, DEFAULT_CACHE_DIR } from './regenerate-instance-data.js';
export type { RegenerateOptions, RegenerateResult, ResolvedSource } from './regenerate-instance-data.js';
export { summarizeSubsampleReports } from './summarize-reports.js';
export type { InstanceSubsampleReport } from './summarize-reports.js';
export { planSubsampleCheckReport, writeSubsampleReport, writeSubsampleCheckReport } from './write-subsample-report.js';
export { subsampleInstance, withSubsampleSpec, describeVerificationChange } from './subsample-instance.js';
export type { SubsampleInstanceOptions, SubsampleInstanceResult, VerifyInstanceDir } from './subsample-instance.js';
