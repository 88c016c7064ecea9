import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { CanonicalLibraryName, CrashType, PipelineStage, RootCause } from './generated/schema-types.js';
import { SCHEMAS_DIR } from './validate.js';

interface TaxonomySchema {
  $defs: Record<'canonicalLibrary' | 'rootCause' | 'crashType' | 'pipelineStage', { enum: string[] }>;
}
const taxonomy = JSON.parse(readFileSync(path.join(SCHEMAS_DIR, 'taxonomy.schema.json'), 'utf8')) as TaxonomySchema;

// The vocabularies are read from schemas/taxonomy.schema.json so that the
// schema stays the single source of truth for both validation and code.
// A library label is a canonical name or, for a library outside that list, its
// package name (schemas/taxonomy.schema.json); LIBRARY_NAMES is the canonical list.
export const LIBRARY_NAMES = taxonomy.$defs.canonicalLibrary.enum as readonly CanonicalLibraryName[];
export const ROOT_CAUSES = taxonomy.$defs.rootCause.enum as readonly RootCause[];
export const CRASH_TYPES = taxonomy.$defs.crashType.enum as readonly CrashType[];
export const PIPELINE_STAGES = taxonomy.$defs.pipelineStage.enum as readonly PipelineStage[];

export const LABEL_DIMENSIONS = ['library', 'crashType', 'rootCause', 'pipelineStage'] as const;
export type LabelDimension = (typeof LABEL_DIMENSIONS)[number];

export const VOCABULARIES: Record<LabelDimension, readonly string[]> = {
  library: LIBRARY_NAMES,
  crashType: CRASH_TYPES,
  rootCause: ROOT_CAUSES,
  pipelineStage: PIPELINE_STAGES,
};

/**
 * Top-level Python module → canonical library. Modules not listed here map to
 * themselves when they are canonical names; everything else is unknown.
 * Keras is folded into TensorFlow (README, "Formats": `tensorflow/keras` is one class).
 */
const MODULE_ALIASES: Record<string, CanonicalLibraryName> = {
  tensorflow: 'tensorflow/keras',
  keras: 'tensorflow/keras',
  tf_keras: 'tensorflow/keras',
  tensorflow_hub: 'tensorflow/keras',
  tensorflow_decision_forests: 'tensorflow/keras',
  keras_tuner: 'tensorflow/keras',
  kerastuner: 'tensorflow/keras',
  tensorflow_addons: 'tensorflow/keras',
  tensorflow_datasets: 'tensorflow/keras',
  torch: 'torch',
  torchvision: 'torchvision',
  sklearn: 'sklearn',
  scikit_learn: 'sklearn',
  numpy: 'numpy',
  pandas: 'pandas',
  matplotlib: 'matplotlib',
  pylab: 'matplotlib',
  seaborn: 'seaborn',
  statsmodels: 'statsmodels',
  lightgbm: 'lightgbm',
  xgboost: 'xgboost',
  catboost: 'catboost',
  scipy: 'scipy',
  cv2: 'cv2',
  transformers: 'transformers',
  PIL: 'PIL',
  pillow: 'PIL',
  imblearn: 'imblearn',
  skimage: 'skimage',
};

/** Canonical library for a Python module path such as `sklearn.model_selection`, or undefined. */
export function libraryOfModule(module: string): CanonicalLibraryName | undefined {
  const top = module.split('.')[0] ?? '';
  const alias = MODULE_ALIASES[top];
  if (alias) return alias;
  return (LIBRARY_NAMES as readonly string[]).includes(top) && top !== 'None'
    ? (top as CanonicalLibraryName)
    : undefined;
}

/**
 * Canonical library for a label as sources write it: `tensorflow`, `Keras`,
 * `NBspecific`, `scikit-learn`, `none`… Returns undefined when unknown.
 */
export function canonicalLibrary(label: string): CanonicalLibraryName | undefined {
  const raw = label.trim();
  if (raw === '') return undefined;
  const key = raw.toLowerCase().replace(/[\s-]+/g, '_');
  if (['none', 'nbspecific', 'nb_specific', 'python', 'no_library', 'nan'].includes(key)) return 'None';
  if (key === 'tensorflow/keras' || key === 'tf' || key === 'tensorflow_keras') return 'tensorflow/keras';
  if (key === 'scikit_learn' || key === 'sklearn') return 'sklearn';
  if (key === 'pil' || key === 'pillow') return 'PIL';
  if (key === 'pytorch') return 'torch';
  if (key === 'opencv' || key === 'opencv_python' || key === 'cv2') return 'cv2';
  const byModule = libraryOfModule(raw) ?? libraryOfModule(key);
  if (byModule) return byModule;
  const exact = LIBRARY_NAMES.find((n) => n.toLowerCase() === key);
  return exact;
}

export function isLibraryName(value: string): value is CanonicalLibraryName {
  return (LIBRARY_NAMES as readonly string[]).includes(value);
}
