import type { PipelineStage } from '@junobench/core';
import type { CrashFacts } from './crash-facts.js';
import { decide, truncate, type RuleDecision } from './suggestion-rule.js';

/*
 * The pipeline stage is read off the code that crashed: what the crashing
 * line, the cell's own statement and the library functions on the way do.
 * Each cue is a fact about ML code (`.fit(` trains, `.predict(` evaluates,
 * `plt.` draws, `read_csv` prepares data), weighted by where it is seen.
 */
type Cue = readonly [RegExp, PipelineStage, number];

const CODE_CUES: readonly Cue[] = [
  [
    /\.fit\(|fit_generator\(|\.train\(|train_on_batch|\.backward\(|optimizer\.step\(|\bepochs?\s*=|GridSearchCV|RandomizedSearchCV|cross_val_score|cross_validate|\.partial_fit\(|study\.optimize|\btrainer\.train|\bTrainer\(|train_(?:loader|dataloader|generator|ds)\b|trainloader|model\.train\(\)|\bcv\.split\(|\.fit_one_cycle|\blearn\.fit|\.to\(device\)|\.cuda\(\)/,
    'training',
    1,
  ],
  [/\bloss\b|\bcriterion\(|\boptimizer\b/, 'training', 0.5],
  [
    /\.predict(?:_proba|_classes|_generator)?\(|\.evaluate(?:_generator)?\(|\.score\(|accuracy_score|confusion_matrix|classification_report|roc_curve|roc_auc_score|f1_score|precision_score|recall_score|mean_(?:absolute|squared)_error|r2_score|\.generate\(|model\.eval\(\)|\bsubmission\b|test_(?:generator|loader|ds)\b|\by_pred\w*|\bpredictions?\b|\bpreds?\b|\binference\b|ConfusionMatrixDisplay|\bmetrics\.|load_weights\(|load_model\(/,
    'evaluation/prediction',
    1,
  ],
  // Plots of training curves and of metrics are how models are evaluated.
  [
    /history\.history|\bhistory\[['"](?:loss|acc|accuracy|val_)|\b(?:train|val|valid|test)_?(?:losses|loss|accs?|accuracy|scores?)\b|\bcm_display\b|\bdisp\.plot\(|plot_confusion_matrix|\bcm\b|\bconfusion/,
    'evaluation/prediction',
    1.5,
  ],
  [
    /Sequential\(|\.add\(|\b(?:Dense|Conv[123]D|Conv[123]d|LSTM|GRU|Embedding|Dropout|BatchNormalization|MaxPooling[123]D|Flatten|Input)\(|\blayers\.|\.compile\(|\bModel\(|from_pretrained\(|load_state_dict\(|nn\.(?:Linear|Conv\w*|Module|Sequential|LSTM)|\.summary\(\)|plot_model\(|applications\.|weights\s*=\s*['"]imagenet|(?:build|create|get|make)_model\(|super\(\)\.__init__/,
    'model construction',
    1,
  ],
  [
    /\bplt\.|\bsns\.|\.plot\(|\bimshow\(|\.hist\(|\bpx\.|\bgo\.Figure|\bfig\b|\bax(?:es|s|\d)?\.|\.show\(\)|\bheatmap\(|\bscatter\(|barplot|countplot|boxplot|pairplot|WordCloud|\bplotly\b|subplots?\(|\.savefig\(|\bdisplay\(/,
    'data visualization',
    1.5,
  ],
  [
    /read_(?:csv|excel|json|parquet|table|pickle|sql)\(|\bpd\.|\.drop\(|\.merge\(|\.fillna\(|\.dropna\(|get_dummies\(|LabelEncoder|OneHotEncoder|StandardScaler|MinMaxScaler|\.fit_transform\(|\.transform\(|train_test_split\(|\.astype\(|\.reshape\(|np\.(?:array|asarray|concatenate|stack)\(|\bopen\(|os\.listdir|\bglob\(|ImageDataGenerator|flow_from_\w+\(|tokeniz|pad_sequences|\.apply\(|\.map\(|\.replace\(|\.groupby\(|pd\.concat|\bDataLoader\(|Dataset\(|transforms\.|cv2\.(?:imread|resize|cvtColor)|Image\.open|\.split\(|\.strip\(|\.str\.|\.to_csv\(|\.value_counts\(|\.rename\(|\.set_index\(|\.reset_index\(|\.sort_values\(|\.to_datetime\(|\.unique\(\)/,
    'data preparation',
    1,
  ],
  // Reading a column is what plots and models do too: a weak cue.
  [/\.loc\[|\.iloc\[|\bdf\w*\[/, 'data preparation', 0.4],
];

/** Library modules (dotted) and the function entered, as cues: `sklearn.metrics` evaluates. */
const LIBRARY_CUES: ReadonlyArray<readonly [RegExp, PipelineStage]> = [
  [/^sklearn\.metrics|^torchmetrics|^keras\.metrics|^tensorflow\.python\.keras\.metrics/, 'evaluation/prediction'],
  [
    /^(?:sklearn\.(?:preprocessing|impute|feature_extraction|feature_selection|decomposition|compose)|pandas|category_encoders|imblearn|nltk|keras\.preprocessing|keras_preprocessing|tensorflow\.python\.data|torch\.utils\.data|torchvision\.transforms|PIL|cv2)\b/,
    'data preparation',
  ],
  [/^(?:matplotlib|seaborn|plotly|wordcloud|missingno|yellowbrick)\b/, 'data visualization'],
  [
    /^(?:keras|tensorflow\.python\.keras|tensorflow\.keras)\.(?:layers|engine\.(?:sequential|functional|base_layer|input_layer)|models|applications)|^transformers\.modeling_utils|^timm\.models/,
    'model construction',
  ],
  // A forward pass through a torch module outside any evaluation cue is, most often, a training step.
  [/^torch\.nn\.(?:modules|functional)/, 'training'],
];

const FUNCTION_CUES: ReadonlyArray<readonly [RegExp, PipelineStage]> = [
  [
    /^(?:fit|fit_generator|train|train_on_batch|_fit\w*|partial_fit|backward|step|optimize|cross_val\w*|_run_trial)$/,
    'training',
  ],
  [/^(?:predict\w*|evaluate\w*|score|generate|inference|transform_predict)$/, 'evaluation/prediction'],
  [/^(?:add|compile|build|from_pretrained|load_state_dict|summary|__init__)$/, 'model construction'],
  [/^(?:load_weights|load_model)$/, 'evaluation/prediction'],
  [/^(?:plot|show|imshow|scatter|hist|bar|barh|heatmap|\w+plot)$/, 'data visualization'],
  [
    /^(?:read_\w+|fit_transform|transform|merge|concat|drop|get_dummies|astype|apply|map|split|train_test_split)$/,
    'data preparation',
  ],
];

export function suggestPipelineStage(f: CrashFacts): RuleDecision<PipelineStage> {
  const scores = new Map<PipelineStage, number>();
  const why = new Map<PipelineStage, string[]>();
  const add = (stage: PipelineStage, weight: number, evidence: string) => {
    scores.set(stage, (scores.get(stage) ?? 0) + weight);
    const list = why.get(stage) ?? [];
    if (list.length < 3 && !list.includes(evidence)) list.push(evidence);
    why.set(stage, list);
  };
  const scan = (code: string, weight: number, where: string) => {
    const blanked = code.replace(/#.*$/gm, '');
    for (const [re, stage, w] of CODE_CUES) {
      const m = re.exec(blanked);
      if (m) add(stage, weight * w, `${where} has ${truncate(m[0], 40)}`);
    }
  };
  scan(f.statement, 3, 'the crashing line');
  const cellStatement = f.userLines[0];
  if (cellStatement && cellStatement !== f.statement) scan(cellStatement, 2, "the cell's statement");
  for (const line of f.userLines.slice(1, -1)) scan(line, 1, 'a calling line');
  const rest = f.cellCode
    .split('\n')
    .filter((l) => l.trim() !== f.statement.trim())
    .join('\n');
  scan(rest, 0.5, 'the crashing cell');
  const entry = f.libraryFrames[0];
  if (entry?.module) {
    for (const [re, stage] of LIBRARY_CUES)
      if (re.test(entry.module)) add(stage, 2, `the crashing line enters ${entry.module}`);
    const fn = (entry.function ?? '').replace(/\(.*$/s, '').split('.').pop() ?? '';
    for (const [re, stage] of FUNCTION_CUES)
      if (re.test(fn)) add(stage, 1.5, `the library function entered is ${fn}()`);
  }
  if (f.eclass === 'modulenotfounderror' || (f.eclass === 'importerror' && /No module named/.test(f.message))) {
    add(
      'data preparation',
      1,
      'an import at the start of the notebook: JunoBench has no environment stage, data preparation comes first',
    );
  }
  const ranked = [...scores].sort((a, b) => b[1] - a[1]);
  if (ranked.length === 0)
    return decide(
      'data preparation',
      'pipelineStage.default',
      'no cue in the code: data preparation is the most common stage',
    );
  const [best, top] = ranked[0]!;
  const second = ranked[1]?.[1] ?? 0;
  const rule =
    top >= 2 * second + 2 ? 'pipelineStage.clear' : top > second ? 'pipelineStage.ahead' : 'pipelineStage.tie';
  return decide(
    best,
    rule,
    ...(why.get(best) ?? []),
    ...(ranked[1] ? [`next: ${ranked[1][0]} (${ranked[1][1].toFixed(1)} against ${top.toFixed(1)})`] : []),
  );
}
