import type { LibraryName } from '@junobench/core';

/**
 * What a reader of ML tracebacks knows about the libraries, as data: the
 * conventional import aliases, well-known names imported bare, exception
 * classes, object types named in AttributeErrors, and library-specific
 * messages. Each entry is a fact about a library's public API or its error
 * messages, never about a particular crash.
 */

/** Packages that run the notebook rather than the user's code: never a crash's library. */
export const INFRASTRUCTURE_PACKAGES: ReadonlySet<string> = new Set([
  'IPython',
  'ipykernel',
  'ipykernel_launcher',
  'traitlets',
  'tornado',
  'zmq',
  'jupyter_client',
  'jupyter_core',
  'debugpy',
  'pydevd',
  'runpy',
  'asyncio',
  'threading',
  'selectors',
  'concurrent',
  'contextlib',
  'functools',
  'google', // colab's shell
  'kaggle_secrets',
  'tqdm', // progress bars wrap the iterable they report on
]);

/**
 * Canonical libraries whose ecosystems name their packages after them. A
 * library outside the canonical list that is built on one of these says so in
 * its name (`keras_nlp`, `gpytorch`, `torchaudio`, `sentence_transformers`,
 * `geopandas`), and annotators label its crashes by its own name: it is the
 * more specific library (issue 13: "a wrapper library over its base").
 * Generic words (`datasets`) and short names that occur inside unrelated words
 * are left out.
 */
const EXTENSION_BASES: Readonly<Record<string, LibraryName>> = {
  torch: 'torch',
  keras: 'tensorflow/keras',
  tensorflow: 'tensorflow/keras',
  sklearn: 'sklearn',
  transformers: 'transformers',
  pandas: 'pandas',
  numpy: 'numpy',
  matplotlib: 'matplotlib',
  xgboost: 'xgboost',
  lightgbm: 'lightgbm',
  catboost: 'catboost',
  statsmodels: 'statsmodels',
  torchvision: 'torchvision',
  spacy: 'spacy',
  gensim: 'gensim',
  optuna: 'optuna',
};

/**
 * The canonical library a package outside the canonical list is named after
 * (`keras_nlp` → keras, `gpytorch` → torch), or undefined. A part of the
 * name between underscores that is the base, or begins or ends with it,
 * counts; a name that is only the base is the base itself, not an extension.
 */
export function extensionBase(pkg: string): { base: string; library: LibraryName } | undefined {
  if (!/^[a-z][a-z0-9_]*$/.test(pkg) || pkg in EXTENSION_BASES) return undefined;
  for (const part of pkg.split('_')) {
    if (part === '') continue;
    for (const [base, library] of Object.entries(EXTENSION_BASES)) {
      if (part === base || part.startsWith(base) || part.endsWith(base)) return { base, library };
    }
  }
  return undefined;
}

/** Packages a library ships or shipped under another top-level name. */
export const PACKAGE_LIBRARIES: Readonly<Record<string, LibraryName>> = {
  tensorflow_core: 'tensorflow/keras',
  tensorflow_estimator: 'tensorflow/keras',
  keras_preprocessing: 'tensorflow/keras',
  tf_keras: 'tensorflow/keras',
  mpl_toolkits: 'matplotlib',
  sklearn_pandas: 'sklearn',
};

/** Conventional import aliases (`import numpy as np`) and common names of submodules. */
export const CONVENTIONAL_ALIASES: Readonly<Record<string, LibraryName>> = {
  np: 'numpy',
  numpy: 'numpy',
  pd: 'pandas',
  pandas: 'pandas',
  plt: 'matplotlib',
  mpl: 'matplotlib',
  matplotlib: 'matplotlib',
  pylab: 'matplotlib',
  sns: 'seaborn',
  seaborn: 'seaborn',
  tf: 'tensorflow/keras',
  tensorflow: 'tensorflow/keras',
  keras: 'tensorflow/keras',
  layers: 'tensorflow/keras',
  K: 'tensorflow/keras',
  torch: 'torch',
  nn: 'torch',
  F: 'torch',
  optim: 'torch',
  torchvision: 'torchvision',
  transforms: 'torchvision',
  sklearn: 'sklearn',
  sm: 'statsmodels',
  smf: 'statsmodels',
  statsmodels: 'statsmodels',
  lgb: 'lightgbm',
  lgbm: 'lightgbm',
  lightgbm: 'lightgbm',
  xgb: 'xgboost',
  xgboost: 'xgboost',
  cb: 'catboost',
  catboost: 'catboost',
  scipy: 'scipy',
  stats: 'scipy',
  cv2: 'cv2',
  Image: 'PIL',
  PIL: 'PIL',
  px: 'plotly',
  go: 'plotly',
  plotly: 'plotly',
  nltk: 'nltk',
  gensim: 'gensim',
  spacy: 'spacy',
  librosa: 'librosa',
  skimage: 'skimage',
  transformers: 'transformers',
  optuna: 'optuna',
  shap: 'shap',
  msno: 'missingno',
  missingno: 'missingno',
  albumentations: 'albumentations',
  A: 'albumentations',
  timm: 'timm',
};

/** Names usually imported bare (`from sklearn.metrics import accuracy_score`). */
export const WELL_KNOWN_NAMES: Readonly<Record<string, LibraryName>> = {
  // scikit-learn
  train_test_split: 'sklearn',
  cross_val_score: 'sklearn',
  cross_validate: 'sklearn',
  cross_val_predict: 'sklearn',
  GridSearchCV: 'sklearn',
  RandomizedSearchCV: 'sklearn',
  KFold: 'sklearn',
  StratifiedKFold: 'sklearn',
  accuracy_score: 'sklearn',
  balanced_accuracy_score: 'sklearn',
  f1_score: 'sklearn',
  precision_score: 'sklearn',
  recall_score: 'sklearn',
  roc_auc_score: 'sklearn',
  roc_curve: 'sklearn',
  auc: 'sklearn',
  precision_recall_curve: 'sklearn',
  confusion_matrix: 'sklearn',
  classification_report: 'sklearn',
  mean_squared_error: 'sklearn',
  mean_absolute_error: 'sklearn',
  mean_absolute_percentage_error: 'sklearn',
  r2_score: 'sklearn',
  log_loss: 'sklearn',
  silhouette_score: 'sklearn',
  ConfusionMatrixDisplay: 'sklearn',
  plot_confusion_matrix: 'sklearn',
  compute_class_weight: 'sklearn',
  StandardScaler: 'sklearn',
  MinMaxScaler: 'sklearn',
  RobustScaler: 'sklearn',
  LabelEncoder: 'sklearn',
  OneHotEncoder: 'sklearn',
  OrdinalEncoder: 'sklearn',
  PolynomialFeatures: 'sklearn',
  SimpleImputer: 'sklearn',
  KNNImputer: 'sklearn',
  PCA: 'sklearn',
  TruncatedSVD: 'sklearn',
  TSNE: 'sklearn',
  KMeans: 'sklearn',
  DBSCAN: 'sklearn',
  LogisticRegression: 'sklearn',
  LinearRegression: 'sklearn',
  Ridge: 'sklearn',
  Lasso: 'sklearn',
  ElasticNet: 'sklearn',
  SVC: 'sklearn',
  SVR: 'sklearn',
  LinearSVC: 'sklearn',
  KNeighborsClassifier: 'sklearn',
  KNeighborsRegressor: 'sklearn',
  GaussianNB: 'sklearn',
  MultinomialNB: 'sklearn',
  DecisionTreeClassifier: 'sklearn',
  DecisionTreeRegressor: 'sklearn',
  RandomForestClassifier: 'sklearn',
  RandomForestRegressor: 'sklearn',
  GradientBoostingClassifier: 'sklearn',
  GradientBoostingRegressor: 'sklearn',
  AdaBoostClassifier: 'sklearn',
  ExtraTreesClassifier: 'sklearn',
  VotingClassifier: 'sklearn',
  StackingClassifier: 'sklearn',
  Pipeline: 'sklearn',
  make_pipeline: 'sklearn',
  ColumnTransformer: 'sklearn',
  make_column_transformer: 'sklearn',
  TfidfVectorizer: 'sklearn',
  CountVectorizer: 'sklearn',
  SelectKBest: 'sklearn',
  // Keras / TensorFlow
  pad_sequences: 'tensorflow/keras',
  to_categorical: 'tensorflow/keras',
  Sequential: 'tensorflow/keras',
  Dense: 'tensorflow/keras',
  Conv2D: 'tensorflow/keras',
  MaxPooling2D: 'tensorflow/keras',
  LSTM: 'tensorflow/keras',
  Embedding: 'tensorflow/keras',
  Dropout: 'tensorflow/keras',
  Flatten: 'tensorflow/keras',
  Input: 'tensorflow/keras',
  load_model: 'tensorflow/keras',
  ImageDataGenerator: 'tensorflow/keras',
  plot_model: 'tensorflow/keras',
  EarlyStopping: 'tensorflow/keras',
  ModelCheckpoint: 'tensorflow/keras',
  ReduceLROnPlateau: 'tensorflow/keras',
  image_dataset_from_directory: 'tensorflow/keras',
  load_img: 'tensorflow/keras',
  img_to_array: 'tensorflow/keras',
  // PyTorch
  DataLoader: 'torch',
  TensorDataset: 'torch',
  random_split: 'torch',
  // gradient boosting
  XGBClassifier: 'xgboost',
  XGBRegressor: 'xgboost',
  DMatrix: 'xgboost',
  LGBMClassifier: 'lightgbm',
  LGBMRegressor: 'lightgbm',
  CatBoostClassifier: 'catboost',
  CatBoostRegressor: 'catboost',
  // statsmodels
  ARIMA: 'statsmodels',
  SARIMAX: 'statsmodels',
  ExponentialSmoothing: 'statsmodels',
  seasonal_decompose: 'statsmodels',
  adfuller: 'statsmodels',
  plot_acf: 'statsmodels',
  plot_pacf: 'statsmodels',
  variance_inflation_factor: 'statsmodels',
  // others
  SMOTE: 'imblearn',
  RandomOverSampler: 'imblearn',
  RandomUnderSampler: 'imblearn',
  WordCloud: 'wordcloud',
  word_tokenize: 'nltk',
  AutoTokenizer: 'transformers',
  AutoModel: 'transformers',
  AutoModelForSequenceClassification: 'transformers',
  BertTokenizer: 'transformers',
  Trainer: 'transformers',
  TrainingArguments: 'transformers',
};

/** Exception classes that only a library raises (unqualified names as printed). */
export const LIBRARY_EXCEPTIONS: Readonly<Record<string, LibraryName>> = {
  notfittederror: 'sklearn',
  convergencewarning: 'sklearn',
  invalidargumenterror: 'tensorflow/keras',
  resourceexhaustederror: 'tensorflow/keras',
  failedpreconditionerror: 'tensorflow/keras',
  unimplementederror: 'tensorflow/keras',
  outofrangeerror: 'tensorflow/keras',
  internalerror: 'tensorflow/keras',
  unknownerror: 'tensorflow/keras',
  operatornotallowedingrapherror: 'tensorflow/keras',
  axiserror: 'numpy',
  linalgerror: 'numpy',
  parsererror: 'pandas',
  emptydataerror: 'pandas',
  intcastingnanerror: 'pandas',
  invalidindexerror: 'pandas',
  mergeerror: 'pandas',
  settingwithcopyerror: 'pandas',
  outofboundsdatetime: 'pandas',
  indexingerror: 'pandas',
  perfectseparationerror: 'statsmodels',
  missingdataerror: 'statsmodels',
  xgboosterror: 'xgboost',
  lightgbmerror: 'lightgbm',
  catboosterror: 'catboost',
  unidentifiedimageerror: 'PIL',
  decompressionbombserror: 'PIL',
};

/** Pure-Python errors about names the notebook's state does not have: no library caused them. */
export const NOTEBOOK_STATE_ERRORS: ReadonlySet<string> = new Set(['nameerror', 'unboundlocalerror']);

/**
 * scikit-learn's public classes whose names the suffix pattern below does not
 * cover (estimators, splitters, transformers and containers named without a
 * Classifier/Regressor/Scaler… suffix), from its API reference.
 */
const SKLEARN_CLASS_NAMES = new RegExp(
  `^(?:${[
    // neighbours, clustering, mixtures, outliers
    'NearestNeighbors', 'NearestCentroid', 'KernelDensity', 'LocalOutlierFactor', 'IsolationForest', 'OneClassSVM', 'EllipticEnvelope',
    'MiniBatchKMeans', 'BisectingKMeans', 'AgglomerativeClustering', 'MeanShift', 'SpectralClustering', 'Birch', 'OPTICS', 'HDBSCAN',
    'AffinityPropagation', 'FeatureAgglomeration', 'GaussianMixture', 'BayesianGaussianMixture',
    // decomposition and manifolds
    'IncrementalPCA', 'KernelPCA', 'SparsePCA', 'MiniBatchSparsePCA', 'NMF', 'MiniBatchNMF', 'LatentDirichletAllocation', 'FactorAnalysis',
    'FastICA', 'DictionaryLearning', 'Isomap', 'LocallyLinearEmbedding', 'MDS', 'SpectralEmbedding',
    // linear and other models
    'LinearRegression', 'Lars', 'LassoLars', 'LassoCV', 'RidgeCV', 'ElasticNetCV', 'OrthogonalMatchingPursuit', 'BayesianRidge', 'ARDRegression',
    'Perceptron', 'LinearSVR', 'NuSVC', 'NuSVR', 'KernelRidge', 'LinearDiscriminantAnalysis', 'QuadraticDiscriminantAnalysis',
    'ComplementNB', 'CategoricalNB', 'GaussianProcessClassifier', 'IsotonicRegression',
    // preprocessing, selection, composition
    'Binarizer', 'LabelBinarizer', 'MultiLabelBinarizer', 'Normalizer', 'KBinsDiscretizer', 'SelectKBest', 'SelectPercentile', 'SelectFromModel',
    'RFE', 'RFECV', 'VarianceThreshold', 'SequentialFeatureSelector', 'FeatureUnion', 'Bunch',
    // model selection
    'ShuffleSplit', 'StratifiedShuffleSplit', 'GroupShuffleSplit', 'PredefinedSplit', 'LeaveOneOut', 'LeavePOut', 'LeaveOneGroupOut', 'TimeSeriesSplit', 'ParameterGrid', 'ParameterSampler',
  ].join('|')})$`,
);

/**
 * Object types named in `'T' object has no attribute …` and similar messages.
 * Checked in order; the first pattern matching the type name wins.
 */
export const OBJECT_TYPES: ReadonlyArray<readonly [RegExp, LibraryName]> = [
  [/^numpy\.|^ndarray$|^matrix$/, 'numpy'],
  [
    /^pandas\.|^(DataFrame|Series|Index|RangeIndex|Int64Index|Float64Index|MultiIndex|DatetimeIndex|Categorical|CategoricalDtype|Timestamp|Timedelta|DataFrameGroupBy|SeriesGroupBy|StringMethods|DatetimeProperties|Rolling|Resampler|_LocIndexer|_iLocIndexer)$/,
    'pandas',
  ],
  [
    /^(tensorflow|keras|tf)\.|^(Sequential|Functional|History|KerasTensor|EagerTensor|Dense|Conv2D|LSTM|Embedding|ImageDataGenerator|DirectoryIterator|BatchDataset|PrefetchDataset|MapDataset|TensorSliceDataset|_BatchDataset|_PrefetchDataset|ResourceVariable)$/,
    'tensorflow/keras',
  ],
  // A bare `Dataset` is not torch's: its Dataset is a base class users subclass under their own
  // names, while Hugging Face's datasets and users' own classes print as `Dataset`.
  [/^torch\.|^(Tensor|Parameter|DataLoader|Linear|Conv2d|Sequential_torch|ModuleList|ModuleDict|Subset|TensorDataset)$/, 'torch'],
  [/^torchvision\./, 'torchvision'],
  [/^(XGB\w*|Booster)$|^xgboost\./, 'xgboost'],
  [/^(LGBM\w*)$|^lightgbm\./, 'lightgbm'],
  [/^(CatBoost\w*)$|^catboost\./, 'catboost'],
  [
    /^sklearn\.|^(\w*(Classifier|Regressor|Regression|Scaler|Encoder|Imputer|Vectorizer|Transformer|SearchCV|Selector|Display|KFold|CV)|SVC|SVR|LinearSVC|KMeans|DBSCAN|PCA|TruncatedSVD|TSNE|Pipeline|Lasso|Ridge|ElasticNet|GaussianNB|MultinomialNB|BernoulliNB)$/,
    'sklearn',
  ],
  [SKLEARN_CLASS_NAMES, 'sklearn'],
  [/^matplotlib\.|^(Figure|Axes|AxesSubplot|_?Subplot|Line2D|PathCollection|Text|BarContainer|Legend)$/, 'matplotlib'],
  [/^seaborn\.|^(FacetGrid|PairGrid|JointGrid)$/, 'seaborn'],
  [/^statsmodels\.|^(\w*ResultsWrapper|ARIMA\w*|SARIMAX\w*|OLS|DecomposeResult)$/, 'statsmodels'],
  [/^PIL\.|^(\w*ImageFile|Image)$/, 'PIL'],
  [/^scipy\./, 'scipy'],
  [/^gensim\.|^(Word2Vec|Doc2Vec|FastText|KeyedVectors|Word2VecKeyedVectors|LdaModel|LdaMulticore)$/, 'gensim'],
  [/^transformers\.|^(\w*Tokenizer(Fast)?|BatchEncoding|Bert\w*|GPT2\w*|Roberta\w*|T5\w*)$/, 'transformers'],
  [/^cv2\.|^(cv2\.)?(Mat|VideoCapture)$/, 'cv2'],
];

export type SignatureStrength = 'strong' | 'weak';

/**
 * Messages only a library writes. `strong` ones name the library on their own;
 * `weak` ones are NumPy's generic array errors, which surface through many
 * libraries and count only when nothing more specific is known.
 */
export const MESSAGE_SIGNATURES: ReadonlyArray<readonly [RegExp, LibraryName, SignatureStrength]> = [
  // TensorFlow / Keras
  [/Graph execution error/, 'tensorflow/keras', 'strong'],
  [/is incompatible with (the )?layer/, 'tensorflow/keras', 'strong'],
  [/Failed to convert a NumPy array to a Tensor/, 'tensorflow/keras', 'strong'],
  [/Exception encountered when calling layer/, 'tensorflow/keras', 'strong'],
  [/logits and labels must (have the same|be broadcastable)/, 'tensorflow/keras', 'strong'],
  [/Shapes \([^)]*\) and \([^)]*\) are incompatible/, 'tensorflow/keras', 'strong'],
  [/Layer count mismatch when loading weights/, 'tensorflow/keras', 'strong'],
  [/You must compile your model before/, 'tensorflow/keras', 'strong'],
  [/No gradients provided for any variable/, 'tensorflow/keras', 'strong'],
  [/OOM when allocating tensor/, 'tensorflow/keras', 'strong'],
  [/Error when checking (input|target|model input)/, 'tensorflow/keras', 'strong'],
  [/A target array with shape .* was passed for an output of shape/, 'tensorflow/keras', 'strong'],
  [/Data cardinality is ambiguous/, 'tensorflow/keras', 'strong'],
  [/Unknown (layer|loss function|optimizer|activation function)/, 'tensorflow/keras', 'strong'],
  [/Could not interpret (optimizer|loss|activation function|metric|initializer) identifier/, 'tensorflow/keras', 'strong'],
  // PyTorch
  [/mat1 and mat2 shapes cannot be multiplied/, 'torch', 'strong'],
  [/Expected all tensors to be on the same device/, 'torch', 'strong'],
  [/CUDA out of memory/, 'torch', 'strong'],
  [/received an invalid combination of arguments/, 'torch', 'strong'],
  [/stack expects each tensor to be equal size/, 'torch', 'strong'],
  [/Given groups=\d+, weight of size/, 'torch', 'strong'],
  [/The size of tensor a \(\d+\) must match the size of tensor b/, 'torch', 'strong'],
  [/element \d+ of tensors does not require grad/, 'torch', 'strong'],
  [/Expected input batch_size \(\d+\) to match target batch_size/, 'torch', 'strong'],
  [/modified by an inplace operation/, 'torch', 'strong'],
  [/Using a target size \(torch\.Size/, 'torch', 'strong'],
  [/Caught \w+ in DataLoader worker/, 'torch', 'strong'],
  [/Error\(s\) in loading state_dict/, 'torch', 'strong'],
  [/expected scalar type \w+ but found \w+/, 'torch', 'strong'],
  [/Trying to backward through the graph a second time/, 'torch', 'strong'],
  [/Can't call numpy\(\) on Tensor that requires grad/, 'torch', 'strong'],
  [/can't convert cuda:?\d* device type tensor to numpy/i, 'torch', 'strong'],
  [/view size is not compatible with input tensor/, 'torch', 'strong'],
  [/shape '\[[^\]]*\]' is invalid for input of size/, 'torch', 'strong'],
  [/Dimension out of range \(expected to be in range of/, 'torch', 'strong'],
  [/only one element tensors can be converted to Python scalars/, 'torch', 'strong'],
  [/Boolean value of Tensor with more than one value is ambiguous/, 'torch', 'strong'],
  [/torch\.(Size|FloatTensor|LongTensor|cuda)/, 'torch', 'strong'],
  // scikit-learn
  [/is not fitted yet/, 'sklearn', 'strong'],
  [/Found input variables with inconsistent numbers of samples/, 'sklearn', 'strong'],
  [/Expected 2D array, got (1D array|scalar array) instead/, 'sklearn', 'strong'],
  [/Classification metrics can't handle a mix of/, 'sklearn', 'strong'],
  [/feature names should match those that were passed during fit/, 'sklearn', 'strong'],
  [/Unknown label type/, 'sklearn', 'strong'],
  [/X has \d+ features?, but \w+ is expecting \d+ features/, 'sklearn', 'strong'],
  [/Input (X |y )?contains NaN/, 'sklearn', 'strong'],
  [/n_splits=\d+ cannot be greater than the number of members in each class/, 'sklearn', 'strong'],
  [/the resulting train set will be empty/, 'sklearn', 'strong'],
  [/supports only penalties in/, 'sklearn', 'strong'],
  [/Found array with \d+ (sample|feature)\(s\)/, 'sklearn', 'strong'],
  [/Invalid parameter '?\w+'? for estimator/, 'sklearn', 'strong'],
  [/y should be a 1d array/, 'sklearn', 'strong'],
  // pandas
  [/not found in axis/, 'pandas', 'strong'],
  [/None of \[.*\] are in the \[(columns|index)\]/s, 'pandas', 'strong'],
  [/Length of values \(\d+\) does not match length of index/, 'pandas', 'strong'],
  [/columns overlap but no suffix specified/, 'pandas', 'strong'],
  [/single positional indexer is out-of-bounds/, 'pandas', 'strong'],
  [/Unable to parse string/, 'pandas', 'strong'],
  [/Shape of passed values is/, 'pandas', 'strong'],
  [/DataFrame constructor not properly called/, 'pandas', 'strong'],
  [/The truth value of a (Series|DataFrame) is ambiguous/, 'pandas', 'strong'],
  [/Cannot convert non-finite values \(NA or inf\) to integer/, 'pandas', 'strong'],
  [/cannot reindex (from|on an axis) with duplicate/, 'pandas', 'strong'],
  [/No objects to concatenate/, 'pandas', 'strong'],
  [/You are trying to merge on/, 'pandas', 'strong'],
  [/Columns must be same length as key/, 'pandas', 'strong'],
  [/Can only use \.(str|dt) accessor with/, 'pandas', 'strong'],
  [/If using all scalar values, you must pass an index/, 'pandas', 'strong'],
  [/Column\(s\) \[.*\] do not exist/, 'pandas', 'strong'],
  [/Out of bounds nanosecond timestamp/, 'pandas', 'strong'],
  [/cannot do (slice|positional) indexing on/, 'pandas', 'strong'],
  // matplotlib
  [/Invalid shape \([^)]*\) for image data/, 'matplotlib', 'strong'],
  [/Image data of dtype .* cannot be converted to float/, 'matplotlib', 'strong'],
  [/x and y must (have same first dimension|be the same size)/, 'matplotlib', 'strong'],
  [/The number of FixedLocator locations/, 'matplotlib', 'strong'],
  [/is not a valid value for (color|ls|linestyle|marker)/, 'matplotlib', 'strong'],
  [/Unrecognized character \S in format string/, 'matplotlib', 'strong'],
  [/num must be (1 <= num <=|an integer with 1 <= num <=)/, 'matplotlib', 'strong'],
  [/'c' argument has \d+ elements, which is inconsistent/, 'matplotlib', 'strong'],
  // seaborn
  [/Could not interpret (value|input) `?[^`]*`? for (parameter )?`?\w+`?/, 'seaborn', 'strong'],
  [/Neither the `x` nor `y` variable appears to be numeric/, 'seaborn', 'strong'],
  [/(Horizontal|Vertical) orientation requires numeric `[xy]` variable/, 'seaborn', 'strong'],
  // statsmodels
  [/option for line not understood/, 'statsmodels', 'strong'],
  [/Non-(stationary|invertible) starting (autoregressive|seasonal|moving average) parameters/, 'statsmodels', 'strong'],
  // gradient boosting
  [/DataFrame\.dtypes for data must be int, float, bool or categor/, 'xgboost', 'strong'],
  [/feature_names mismatch/, 'xgboost', 'strong'],
  [/pandas dtypes must be int, float or bool/, 'lightgbm', 'strong'],
  [/\[LightGBM\]/, 'lightgbm', 'strong'],
  [/Invalid type for cat_feature/, 'catboost', 'strong'],
  // OpenCV, PIL, transformers
  [/OpenCV\(\d|\(-215:Assertion failed\)/, 'cv2', 'strong'],
  // OpenCV's Python bindings checking the arguments of a cv2 function before it runs.
  [/Expected Ptr<cv::\w+> for argument|Layout of the output array \w+ is incompatible with cv::Mat|Can't parse '\w+'\. Sequence item with index \d+ has a wrong type|Overload resolution failed:/, 'cv2', 'strong'],
  [/cannot write mode \w+ as (JPEG|PNG)/, 'PIL', 'strong'],
  [/Asking to pad but the tokenizer does not have a padding token/, 'transformers', 'strong'],
  // NumPy's generic array errors
  [/operands could not be broadcast together/, 'numpy', 'weak'],
  [/could not broadcast input array from shape/, 'numpy', 'weak'],
  [/index -?\d+ is out of bounds for axis \d+ with size \d+/, 'numpy', 'weak'],
  [/only integers, slices \(`:`\), ellipsis/, 'numpy', 'weak'],
  [/only integer scalar arrays can be converted to a scalar index/, 'numpy', 'weak'],
  [/shapes \([^)]*\) and \([^)]*\) not aligned/, 'numpy', 'weak'],
  [/zero-dimensional arrays cannot be concatenated/, 'numpy', 'weak'],
  [/all the input array dimensions .*must match exactly/, 'numpy', 'weak'],
  [/all the input arrays must have same number of dimensions/, 'numpy', 'weak'],
  [/cannot reshape array of size \d+ into shape/, 'numpy', 'weak'],
  [/axis -?\d+ is out of bounds for array of dimension/, 'numpy', 'weak'],
  [/setting an array element with a sequence/, 'numpy', 'weak'],
  [/The truth value of an array with more than one element is ambiguous/, 'numpy', 'weak'],
  [/too many indices for array/, 'numpy', 'weak'],
  [/Object arrays cannot be loaded when allow_pickle=False/, 'numpy', 'weak'],
  [/ufunc '\w+' (not supported for the input types|did not contain a loop)/, 'numpy', 'weak'],
  [/matmul: Input operand \d+ has a mismatch in its core dimension/, 'numpy', 'weak'],
  [/array split does not result in an equal division/, 'numpy', 'weak'],
  [/arrays used as indices must be of integer \(or boolean\) type/, 'numpy', 'weak'],
  [/boolean index did not match indexed array/, 'numpy', 'weak'],
  [/Expected 1D or 2D array, got \dD array instead/, 'numpy', 'weak'],
  [/a must be 1-dimensional/, 'numpy', 'weak'],
  [/autodetected range of .* is not finite/, 'numpy', 'weak'],
];

/**
 * Variable names used by convention for one library's objects: `df…`/`…_df`
 * for DataFrames, `ax`/`axes`/`fig` for matplotlib, Keras's `history.history`.
 */
export const CONVENTIONAL_VARIABLES: ReadonlyArray<readonly [RegExp, LibraryName]> = [
  [/^history\.history$/, 'tensorflow/keras'],
  [/^(df|dataframe)(_?\w*)?$|^\w+_df$/i, 'pandas'],
  [/^(ax|axs|axes|ax\d|fig|figure)$/, 'matplotlib'],
];

/**
 * Methods with one library's name written on them. Ambiguous ones (`fit`,
 * `predict`) are absent: imports decide those, if anything does.
 */
export const LIBRARY_METHODS: Readonly<Record<string, LibraryName>> = {
  iloc: 'pandas',
  loc: 'pandas',
  groupby: 'pandas',
  merge: 'pandas',
  dropna: 'pandas',
  fillna: 'pandas',
  value_counts: 'pandas',
  reset_index: 'pandas',
  set_index: 'pandas',
  pivot_table: 'pandas',
  sort_values: 'pandas',
  to_csv: 'pandas',
  isnull: 'pandas',
  isna: 'pandas',
  nunique: 'pandas',
  iterrows: 'pandas',
  get_group: 'pandas',
  to_datetime: 'pandas',
  fit_generator: 'tensorflow/keras',
  predict_generator: 'tensorflow/keras',
  predict_classes: 'tensorflow/keras',
  evaluate_generator: 'tensorflow/keras',
  flow_from_directory: 'tensorflow/keras',
  flow_from_dataframe: 'tensorflow/keras',
  backward: 'torch',
  zero_grad: 'torch',
  unsqueeze: 'torch',
  permute: 'torch',
  state_dict: 'torch',
  load_state_dict: 'torch',
  predict_proba: 'sklearn',
  score: 'sklearn',
  fit_transform: 'sklearn',
  inverse_transform: 'sklearn',
  feature_importances_: 'sklearn',
  best_params_: 'sklearn',
  set_title: 'matplotlib',
  set_xlabel: 'matplotlib',
  set_ylabel: 'matplotlib',
  set_xticks: 'matplotlib',
  set_xticklabels: 'matplotlib',
  savefig: 'matplotlib',
};

/** Methods that several libraries share; the notebook's imports pick the library. */
export const AMBIGUOUS_METHODS: Readonly<Record<string, readonly LibraryName[]>> = {
  fit: ['sklearn', 'tensorflow/keras', 'xgboost', 'lightgbm', 'catboost', 'statsmodels'],
  predict: ['sklearn', 'tensorflow/keras', 'xgboost', 'lightgbm', 'catboost', 'statsmodels'],
  transform: ['sklearn'],
  compile: ['tensorflow/keras'],
  summary: ['tensorflow/keras', 'statsmodels'],
  reshape: ['numpy', 'torch', 'tensorflow/keras'],
  astype: ['numpy', 'pandas'],
  drop: ['pandas'],
  apply: ['pandas'],
};

/**
 * Exception classes that say the notebook's environment failed, not a library:
 * a file, folder or module that is not there, a permission, the network.
 * A library that reported one (pandas opening a CSV, h5py a weights file) did
 * not cause it.
 */
export const ENVIRONMENT_EXCEPTIONS: Readonly<Record<string, string>> = {
  filenotfounderror: 'a file or folder that does not exist',
  isadirectoryerror: 'a folder given where a file is expected',
  notadirectoryerror: 'a file given where a folder is expected',
  permissionerror: 'a permission the environment does not grant',
  fileexistserror: 'a file that already exists in the environment',
  modulenotfounderror: 'a module that is not installed',
  connectionerror: 'a network failure',
  connectionrefusederror: 'a network failure',
  connectionreseterror: 'a network failure',
  connectionabortederror: 'a network failure',
  urlerror: 'a network failure',
  httperror: 'a download that the server refused',
  sslerror: 'a network failure',
  gaierror: 'a network failure (name resolution)',
  maxretryerror: 'a network failure',
  newconnectionerror: 'a network failure',
  readtimeout: 'a network failure',
  connecttimeout: 'a network failure',
  proxyerror: 'a network failure',
  keyboardinterrupt: 'the user interrupting the kernel',
};

/**
 * Messages that say the environment failed, whichever exception carries them
 * (OSError, ValueError, a library's own class) and wherever in the exception
 * chain they appear.
 */
export const ENVIRONMENT_MESSAGES: ReadonlyArray<readonly [RegExp, string]> = [
  [/No such file or directory|\[Errno 2\]|errno = 2\b/, 'a file or folder that does not exist'],
  [/Read-only file system|\[Errno 30\]|errno = 30\b/, 'writing to a read-only file system'],
  [/Permission denied|\[Errno 13\]|errno = 13\b/, 'a permission the environment does not grant'],
  [/Is a directory|\[Errno 21\]/, 'a folder given where a file is expected'],
  [/Not a directory|\[Errno 20\]/, 'a file given where a folder is expected'],
  [/No space left on device|\[Errno 28\]|Disk quota exceeded/, 'a full disk'],
  [/No file or directory found at|SavedModel file does not exist|Unable to (?:open|create|synchronously open) file/, 'a model file that does not exist'],
  [/\bFile b?['"][^'"]+['"] does not exist|\b(?:file|path|directory|folder)\b[^\n]{0,200}\b(?:does not exist|not found|cannot be found)/i, 'a file or folder that does not exist'],
  [/(?:^|[\s'"])[\w./\\-]+\.(?:csv|tsv|txt|json|jsonl|xlsx?|parquet|feather|pkl|pickle|npy|npz|h5|hdf5|keras|pth?|ckpt|bin|safetensors|model|pb|zip|gz|tar|jpe?g|png|wav|mp3|mp4)['"]? (?:not found|does not exist)/i, 'a file that does not exist'],
  [/No module named\b/, 'a module that is not installed'],
  [/DLL load failed|cannot open shared object file|lib\w+\.so(?:\.\d+)*: cannot open/, 'a system library that is missing'],
  [/Temporary failure in name resolution|Name or service not known|nodename nor servname|getaddrinfo failed|No address associated with hostname/, 'a network failure (name resolution)'],
  [/URL fetch failure|urlopen error|Max retries exceeded|Failed to establish a new connection|Connection (?:refused|reset|aborted)|Network is unreachable|Read timed out|Remote end closed connection/, 'a network failure'],
  [/HTTP Error (?:4\d\d|5\d\d)\b|\b(?:403|404|429|500|502|503) (?:Client|Server) Error/, 'a download that the server refused'],
  [/Resource \S+ not found\.[\s\S]*(?:nltk\.download|NLTK Downloader)/, 'a data package that was not downloaded'],
  [/cannot identify image file/, 'a file that is not a readable image (corrupt, or not an image at all)'],
  [/can't start new thread|Resource temporarily unavailable|Too many open files/, 'the system running out of threads or file handles'],
  [/Torch not compiled with CUDA enabled|no CUDA-capable device is detected|Found no NVIDIA driver|CUDA driver version is insufficient|No CUDA GPUs are available/, 'a GPU the environment does not have'],
];

/**
 * Libraries built on another one: when frames of both are on the way from the
 * crashing line to the raise, the crash is the more specific library's
 * (a transformers model runs through torch's Module.__call__; seaborn draws
 * through matplotlib).
 */
export const WRAPPER_LIBRARIES: Readonly<Partial<Record<LibraryName, readonly LibraryName[]>>> = {
  // Only wrappers that JunoBench's labels name as libraries of their own;
  // a model zoo such as timm is labelled with the framework it runs on.
  transformers: ['torch', 'tensorflow/keras', 'numpy'],
  torchvision: ['torch', 'PIL', 'numpy'],
  sklearn: ['numpy', 'pandas', 'scipy'],
  imblearn: ['sklearn', 'numpy', 'pandas'],
  seaborn: ['matplotlib', 'pandas', 'numpy'],
  statsmodels: ['numpy', 'pandas', 'scipy'],
}

/**
 * Public names of the libraries users most often call through their module
 * alias (`np.`, `pd.`, `plt.`…). A missing module attribute that is one
 * letter or only the case away from one of these is the user's typo, not the
 * library's doing.
 */
export const MODULE_PUBLIC_NAMES: Readonly<Partial<Record<LibraryName, readonly string[]>>> = {
  numpy: [
    'array', 'asarray', 'zeros', 'ones', 'empty', 'full', 'arange', 'linspace', 'reshape', 'concatenate', 'stack', 'vstack', 'hstack',
    'mean', 'median', 'std', 'sum', 'max', 'min', 'argmax', 'argmin', 'where', 'unique', 'sqrt', 'exp', 'log', 'abs', 'round', 'dot',
    'matmul', 'transpose', 'expand_dims', 'squeeze', 'clip', 'random', 'linalg', 'isnan', 'nan', 'inf', 'float32', 'float64', 'int32',
    'int64', 'uint8', 'percentile', 'quantile', 'cumsum', 'sort', 'argsort', 'zeros_like', 'ones_like', 'meshgrid', 'load', 'save',
    'loadtxt', 'savetxt', 'histogram', 'corrcoef', 'floor', 'ceil', 'power', 'square', 'newaxis', 'ndarray', 'tile', 'repeat', 'flip',
  ],
  pandas: [
    'DataFrame', 'Series', 'read_csv', 'read_excel', 'read_json', 'read_parquet', 'read_sql', 'read_table', 'read_pickle', 'concat',
    'merge', 'get_dummies', 'to_datetime', 'to_numeric', 'date_range', 'pivot_table', 'crosstab', 'cut', 'qcut', 'isnull', 'isna',
    'notnull', 'notna', 'melt', 'Timestamp', 'Timedelta', 'Categorical', 'Index', 'MultiIndex', 'set_option', 'options', 'unique',
    'value_counts', 'json_normalize', 'factorize', 'plotting', 'ExcelWriter', 'NA', 'NaT',
  ],
  matplotlib: [
    'plot', 'figure', 'subplot', 'subplots', 'show', 'title', 'xlabel', 'ylabel', 'legend', 'scatter', 'bar', 'barh', 'hist', 'imshow',
    'savefig', 'xticks', 'yticks', 'xlim', 'ylim', 'grid', 'tight_layout', 'suptitle', 'axis', 'colorbar', 'pie', 'boxplot', 'text',
    'annotate', 'fill_between', 'axhline', 'axvline', 'close', 'style', 'rcParams', 'cm', 'gca', 'gcf', 'subplots_adjust', 'contour',
    'contourf', 'errorbar', 'stem', 'step', 'violinplot', 'semilogy', 'loglog',
  ],
  seaborn: [
    'heatmap', 'countplot', 'barplot', 'boxplot', 'violinplot', 'scatterplot', 'lineplot', 'histplot', 'distplot', 'kdeplot', 'displot',
    'pairplot', 'jointplot', 'catplot', 'relplot', 'lmplot', 'regplot', 'swarmplot', 'stripplot', 'set', 'set_theme', 'set_style',
    'set_palette', 'color_palette', 'FacetGrid', 'PairGrid', 'clustermap', 'ecdfplot', 'pointplot', 'load_dataset', 'despine',
  ],
  'tensorflow/keras': [
    'keras', 'constant', 'Variable', 'reshape', 'cast', 'reduce_mean', 'reduce_sum', 'concat', 'stack', 'expand_dims', 'squeeze',
    'convert_to_tensor', 'data', 'image', 'nn', 'math', 'random', 'config', 'function', 'GradientTape', 'one_hot', 'argmax', 'shape',
    'float32', 'int32', 'string', 'matmul', 'layers', 'models', 'optimizers', 'losses', 'metrics', 'callbacks', 'Sequential', 'Model',
  ],
  torch: [
    'tensor', 'Tensor', 'zeros', 'ones', 'randn', 'rand', 'arange', 'cat', 'stack', 'no_grad', 'device', 'cuda', 'save', 'load', 'nn',
    'optim', 'from_numpy', 'manual_seed', 'float32', 'long', 'argmax', 'max', 'sigmoid', 'softmax', 'utils', 'FloatTensor',
    'LongTensor', 'unsqueeze', 'squeeze', 'flatten', 'matmul', 'mean', 'sum', 'exp', 'log', 'sqrt', 'where', 'clamp', 'empty',
  ],
};
