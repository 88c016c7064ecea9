// Seeded synthetic crash pools for bench/pool-scale: the same crash rows as an
// empirical-study CSV (tracebacks as ANSI-coloured Python list literals, as
// Jupyter saves them) and as JSONL CrashRecords (what `pool import` makes of it).
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { createRng, stripAnsi, type CrashRecord, type Rng } from '@junobench/core';
import { EMPIRICAL_COLUMNS } from '@junobench/pool';

const R = '\u001b[0;31m';
const G = '\u001b[0;32m';
const C = '\u001b[0;36m';
const B = '\u001b[0;34m';
const X = '\u001b[0m';
const SP = '/opt/conda/lib/python3.10/site-packages';
const ML = 'ML/data science library related (ML imports, error raised by library)';

interface Scenario {
  lib: string;
  ename: string;
  evalue: string;
  frames: string[];
  rootCause: string;
  crashType: string;
  stage: string;
  mlBug: string;
}

const pick = <T>(rng: Rng, items: readonly T[]): T => items[rng.int(items.length)]!;
const cell = (n: number, code: string, before: string[] = []) =>
  `Cell ${G}In[${n}], line ${before.length + 1}${X}\n${before.map((b, i) => `${String(i + 1).padStart(7)} ${b}\n`).join('')}${G}${'-'.repeat(5 - String(before.length + 1).length)}> ${before.length + 1}${X} ${code}\n`;
const lib = (file: string, line: number, fn: string, args: string, code: string) =>
  `File ${G}${SP}/${file}:${line}${X}, in ${C}${fn}${B}(${args})${X}\n${G}${'-'.repeat(Math.max(0, 5 - String(line).length))}> ${line}${X} ${code}\n`;

const COLUMNS = ['price', 'Age', 'Fare', 'target', 'label', 'SalePrice', 'Survived', 'date', 'region', 'income'];
const ENV_CAUSES = [
  'module not installed',
  'file/path not found or exist',
  'insufficient resources',
  'library versions incompatible',
];
const ML_CAUSES = [
  'misunderstanding of data structure',
  'misunderstanding of APIs',
  'wrong implementation',
  'misunderstanding of ML model',
];

const SCENARIOS: Array<(rng: Rng) => Scenario> = [
  (rng) => {
    const col = pick(rng, COLUMNS);
    return {
      lib: 'pandas',
      ename: 'KeyError',
      evalue: `'${col}'`,
      frames: [
        cell(rng.int(80) + 1, `df['${col}'].describe()`, ['df = pd.read_csv(path)']),
        lib('pandas/core/frame.py', 3761, 'DataFrame.__getitem__', 'self, key', 'indexer = self.columns.get_loc(key)'),
        lib('pandas/core/indexes/base.py', 3655, 'Index.get_loc', 'self, key', 'raise KeyError(key) from err'),
      ],
      rootCause: 'misunderstanding of data structure',
      crashType: 'keyerror',
      stage: 'data preparation/preprocessing',
      mlBug: ML,
    };
  },
  (rng) => {
    const a = 50 + rng.int(900);
    const b = a + 1 + rng.int(40);
    return {
      lib: 'numpy',
      ename: 'ValueError',
      evalue: `operands could not be broadcast together with shapes (${a},${rng.int(9) + 2}) (${b},) `,
      frames: [cell(rng.int(80) + 1, 'grad = X.T @ (probs - y) / m', ['probs = sigmoid(X @ w)'])],
      rootCause: 'misunderstanding of data structure',
      crashType: 'unsupported broadcast',
      stage: 'training/validation (grid search)',
      mlBug: ML,
    };
  },
  (rng) => {
    const v = pick(rng, ['male', 'Private', 'Yes', 'Q', 'S']);
    return {
      lib: 'sklearn',
      ename: 'ValueError',
      evalue: `could not convert string to float: '${v}'`,
      frames: [
        cell(rng.int(80) + 1, 'clf.fit(X_train, y_train)', ['clf = RandomForestClassifier(n_estimators=200)']),
        lib(
          'sklearn/ensemble/_forest.py',
          345,
          'BaseForest.fit',
          'self, X, y, sample_weight',
          'X, y = self._validate_data(',
        ),
        lib(
          'sklearn/utils/validation.py',
          879,
          'check_array',
          'array, accept_sparse, dtype',
          'array = _asarray_with_order(array, order=order, dtype=dtype)',
        ),
        lib(
          'pandas/core/generic.py',
          1998,
          'NDFrame.__array__',
          'self, dtype',
          'arr = np.asarray(values, dtype=dtype)',
        ),
      ],
      rootCause: 'misunderstanding of data structure',
      crashType: 'cast exception',
      stage: 'training/validation (grid search)',
      mlBug: ML,
    };
  },
  (rng) => {
    const n = 2 ** (6 + rng.int(5));
    return {
      lib: 'torch',
      ename: 'RuntimeError',
      evalue: `mat1 and mat2 shapes cannot be multiplied (${n}x${n * 8} and ${n * 2}x10)`,
      frames: [
        cell(rng.int(80) + 1, 'outputs = net(images)', ['optimizer.zero_grad()']),
        lib(
          'torch/nn/modules/module.py',
          1501,
          'Module._call_impl',
          'self, *args, **kwargs',
          'return forward_call(*args, **kwargs)',
        ),
        cell(rng.int(80) + 1, 'x = self.fc1(x)'),
        lib(
          'torch/nn/modules/linear.py',
          114,
          'Linear.forward',
          'self, input',
          'return F.linear(input, self.weight, self.bias)',
        ),
      ],
      rootCause: 'misunderstanding of ML model',
      crashType: 'tensor shape mismatch',
      stage: 'training/validation (grid search)',
      mlBug: ML,
    };
  },
  (rng) => {
    const k = 2 + rng.int(20);
    return {
      lib: 'keras',
      ename: 'ValueError',
      evalue: `in user code:\n\n    ValueError: Shapes (None, 1) and (None, ${k}) are incompatible`,
      frames: [
        cell(rng.int(80) + 1, 'history = model.fit(x_train, y_train, epochs=10)'),
        lib(
          'keras/utils/traceback_utils.py',
          70,
          'filter_traceback.<locals>.error_handler',
          '*args, **kwargs',
          'raise e.with_traceback(filtered_tb) from None',
        ),
      ],
      rootCause: 'misunderstanding of ML model',
      crashType: 'tensor shape mismatch',
      stage: 'training/validation (grid search)',
      mlBug: ML,
    };
  },
  (rng) => {
    const a = 10 + rng.int(90);
    return {
      lib: 'matplotlib',
      ename: 'ValueError',
      evalue: `x and y must have same first dimension, but have shapes (${a},) and (${a - 1},)`,
      frames: [
        cell(rng.int(80) + 1, "plt.plot(epochs, val_loss, label='val')"),
        lib('matplotlib/pyplot.py', 2812, 'plot', '*args, scalex, scaley, data, **kwargs', 'return gca().plot('),
        lib(
          'matplotlib/axes/_base.py',
          504,
          '_process_plot_var_args._plot_args',
          'self, tup, kwargs',
          'raise ValueError(f"x and y must have same first dimension, but "',
        ),
      ],
      rootCause: 'misunderstanding of data structure',
      crashType: 'tensor shape mismatch',
      stage: 'evaluation/inference (history plot, metric visualization)',
      mlBug: ML,
    };
  },
  (rng) => ({
    lib: 'seaborn',
    ename: 'TypeError',
    evalue: 'barplot() takes from 0 to 1 positional arguments but 2 were given',
    frames: [cell(rng.int(80) + 1, `sns.barplot(df['${pick(rng, COLUMNS)}'], df['count'])`)],
    rootCause: 'misunderstanding of APIs',
    crashType: 'wrong arguments to API',
    stage: 'data visualization',
    mlBug: ML,
  }),
  (rng) => {
    const name = pick(rng, ['X_train', 'model', 'scaler', 'df_test', 'history']);
    return {
      lib: 'None',
      ename: 'NameError',
      evalue: `name '${name}' is not defined`,
      frames: [cell(rng.int(5) + 1, `${name}.shape`)],
      rootCause: 'nb specific - execution order',
      crashType: 'variable not found',
      stage: 'data preparation/preprocessing',
      mlBug: 'general code error',
    };
  },
  (rng) => {
    const module = pick(rng, ['catboost', 'lightgbm', 'xgboost', 'timm']);
    return {
      lib: module,
      ename: 'ModuleNotFoundError',
      evalue: `No module named '${module}'`,
      frames: [cell(1, `import ${module}`, ['import numpy as np'])],
      rootCause: 'module not installed',
      crashType: 'module not found',
      stage: 'environment setup (module not found, file/path not found)',
      mlBug: ML,
    };
  },
  (rng) => ({
    lib: 'None',
    ename: 'TypeError',
    evalue: `can only concatenate str (not "int") to str`,
    frames: [cell(rng.int(80) + 1, "print('epoch ' + epoch)")],
    rootCause: pick(rng, ['wrong implementation', 'typo']),
    crashType: 'typeerror-op',
    stage: 'training/validation (grid search)',
    mlBug: 'general code error',
  }),
];

function pythonRepr(items: string[]): string {
  // Python's repr of a list of str: single quotes unless the item has one and no double quote.
  const one = (s: string) => {
    const q = s.includes("'") && !s.includes('"') ? '"' : "'";
    let out = '';
    for (const ch of s) {
      const c = ch.codePointAt(0)!;
      if (ch === '\\') out += '\\\\';
      else if (ch === q) out += `\\${q}`;
      else if (ch === '\n') out += '\\n';
      else if (ch === '\t') out += '\\t';
      else if (ch === '\r') out += '\\r';
      else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
      else out += ch;
    }
    return `${q}${out}${q}`;
  };
  return `[${items.map(one).join(', ')}]`;
}

function csvField(v: string | number): string {
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

async function write(stream: WriteStream, text: string): Promise<void> {
  if (!stream.write(text)) await once(stream, 'drain');
}

/** One synthetic crash row, as CSV cells and as the CrashRecord `pool import` would make of it. */
export function syntheticCrash(rng: Rng, i: number): { cells: Record<string, string | number>; record: CrashRecord } {
  const s = pick(rng, SCENARIOS)(rng);
  const env = s.rootCause === 'module not installed' || rng.next() < 0.08;
  const rootCause = env && s.rootCause !== 'module not installed' ? pick(rng, ENV_CAUSES) : s.rootCause;
  const source = rng.next() < 0.8 ? 1 : 2;
  const items = [
    `${R}${'-'.repeat(75)}${X}`,
    `${R}${s.ename}${X}${' '.repeat(Math.max(1, 42 - s.ename.length))}Traceback (most recent call last)`,
    ...s.frames,
    `${R}${s.ename}${X}: ${s.evalue}`,
  ];
  const hex = (n: number) => Array.from({ length: n }, () => rng.int(16).toString(16)).join('');
  const fname = `${hex(6)}_synthetic-${i}.ipynb`;
  const eid = `${hex(8)}-${hex(4)}-4${hex(3)}-8${hex(3)}-${hex(12)}`;
  const cluster = rng.int(40);
  const cells: Record<string, string | number> = {
    fname,
    eid,
    ename: s.ename.toLowerCase(),
    evalue: s.evalue,
    traceback: pythonRepr(items),
    nb_source: source,
    cluster_id: cluster,
    'Libs-cause': s.lib,
    label_refined_exp_type: s.crashType,
    label_root_cause: rng.next() < 0.05 ? pick(rng, ML_CAUSES) : rootCause,
    label_if_ML_bug: s.mlBug,
    label_ML_pipeline: s.stage,
    ename_mapped: s.ename.toLowerCase(),
    evalue_processed: s.evalue.replace(/\d+/g, '<num>'),
    pregroup_cluster: `${s.ename.toLowerCase()}_${cluster}`,
    nb_url_kaggle: source === 1 ? `https://www.kaggle.com/code/synthetic/nb-${i}` : '',
  };
  const library = s.lib === 'keras' ? 'tensorflow/keras' : s.lib;
  const record: CrashRecord = {
    id: eid,
    notebook: fname,
    source: source === 1 ? 'kaggle' : 'github',
    ...(source === 1 ? { url: cells.nb_url_kaggle as string } : {}),
    ename: cells.ename as string,
    evalue: s.evalue,
    traceback: items.map(stripAnsi),
    labels: {
      library,
      crashType: s.crashType,
      rootCause: cells.label_root_cause as string,
      pipelineStage: s.stage,
      isMlBug: s.mlBug === ML,
    },
    // As read back from the CSV: text cells, empty ones null.
    columns: Object.fromEntries(
      EMPIRICAL_COLUMNS.map((c) => [c, cells[c] === '' || cells[c] === undefined ? null : String(cells[c])]),
    ),
  };
  return { cells, record };
}

/** Write `size` synthetic crashes as an empirical-study CSV and as JSONL, seeded. */
export async function writeSyntheticPool(options: {
  size: number;
  seed: string | number;
  csv: string;
  jsonl: string;
}): Promise<void> {
  const rng = createRng(`pool-scale:${options.seed}`);
  const csv = createWriteStream(options.csv);
  const jsonl = createWriteStream(options.jsonl);
  await write(csv, `${EMPIRICAL_COLUMNS.join(',')}\n`);
  for (let i = 0; i < options.size; i++) {
    const { cells, record } = syntheticCrash(rng, i);
    await write(csv, `${EMPIRICAL_COLUMNS.map((c) => csvField(cells[c] ?? '')).join(',')}\n`);
    await write(jsonl, `${JSON.stringify(record)}\n`);
  }
  csv.end();
  jsonl.end();
  await Promise.all([once(csv, 'close'), once(jsonl, 'close')]);
}
