import {
  editDistance,
  isLibraryName,
  libraryOfModule as coreLibraryOfModule,
  type CrashRecord,
  type LibraryName,
} from '@junobench/core';
import { parseImports, parseTraceback, type TracebackFrame } from '@junobench/notebook';
import {
  AMBIGUOUS_METHODS,
  CONVENTIONAL_ALIASES,
  CONVENTIONAL_VARIABLES,
  ENVIRONMENT_EXCEPTIONS,
  ENVIRONMENT_MESSAGES,
  INFRASTRUCTURE_PACKAGES,
  LIBRARY_EXCEPTIONS,
  LIBRARY_METHODS,
  MESSAGE_SIGNATURES,
  MODULE_PUBLIC_NAMES,
  NOTEBOOK_STATE_ERRORS,
  OBJECT_TYPES,
  WELL_KNOWN_NAMES,
  PACKAGE_LIBRARIES,
  WRAPPER_LIBRARIES,
  extensionBase,
} from './library-knowledge.js';
import { quotedKeys, removesKey } from './removed-keys.js';
import { RULE_CONFIDENCE, type LibraryRule } from './rule-confidence.js';

/** What the estimator reads of a crash: a CrashRecord has it all. */
export type LibraryEvidence = Pick<CrashRecord, 'ename' | 'evalue' | 'traceback' | 'imports'>;

export interface LibraryPrediction {
  library: LibraryName;
  /** How much the deciding signal is usually worth, in [0, 1]. */
  confidence: number;
  /** The signals found, the deciding one first. */
  evidence: string[];
  /** Which rule decided (its measured hit rate is the confidence). */
  rule: LibraryRule;
}

/*
 * Which library caused a crash, from its traceback — the order of signals and why:
 *
 * 1. Errors about the notebook's own state (NameError for a name never defined,
 *    an unexecuted cell) are caused by no library: None.
 * 2. The library the crashing user line called into: the first library frame
 *    after the deepest notebook frame of the exception that reached the user.
 *    This is the API the user used, which is what annotators label — a ValueError
 *    raised deep in NumPy from `model.fit(...)` is a scikit-learn or Keras
 *    crash. Pass-through frames are looked through: notebook machinery
 *    (IPython, ipykernel), decorator wrappers of another library, and
 *    conversion protocols the interpreter calls implicitly (`__index__`,
 *    `__iter__`: the user did not call the library there).
 * 3. Without a library frame (the crash is in the user's line or in C code):
 *    the exception class when a library owns it; the function named by a
 *    TypeError, resolved on the crashing line; the object type named by an
 *    AttributeError; a library-specific message; then the line itself —
 *    module-alias calls (`plt.`, `np.`) and well-known imported names, the
 *    object a KeyError/IndexError subscripts, conventional variable names
 *    (`df`, `ax`, `history.history`); NumPy's generic array messages; finally
 *    library-specific method names, and ambiguous ones (`fit`) through the
 *    notebook's imports.
 * 4. Nothing points at a library: None.
 */
export function predictLibrary(record: LibraryEvidence): LibraryPrediction {
  return new Analysis(record).decide();
}

type FrameRole =
  | { role: 'user' }
  | { role: 'library'; library: LibraryName; name: string }
  | { role: 'python' }
  | { role: 'transparent' };

const IMPLICIT_DUNDERS = new Set([
  '__index__',
  '__int__',
  '__float__',
  '__bool__',
  '__len__',
  '__iter__',
  '__next__',
  '__array__',
  '__repr__',
  '__str__',
  '__format__',
  '__hash__',
  '__contains__',
  '__del__',
]);

/** Decorator and dispatch wrappers that only pass a call through to what they wrap. */
const WRAPPER_FUNCTION =
  /(^|\.)(wrapper|wrapped|inner|decorated|decorator|new_func|inner_f|wrapper_function|func_wrapper|_wrapper|error_handler)(\(|$|\s)/;

/**
 * The canonical library of a module path, including the packages a library ships under another name
 * (`tensorflow_core`).
 */
function libraryOfModule(module: string): LibraryName | undefined {
  return coreLibraryOfModule(module) ?? PACKAGE_LIBRARIES[module.split('.')[0] ?? ''];
}

/** Library package names that users also give their own folders. */
const GENERIC_FOLDER_NAMES: ReadonlySet<string> = new Set(['datasets']);

/** A base library's call machinery, which hands the call to the object's own code. */
const DISPATCH_FUNCTION =
  /^(?:_call_impl|_wrapped_call_impl|__call__|error_handler|forward_call|wrapper|_method_wrapper|decorate_context)$/;

function frameFunctionName(f: TracebackFrame): string {
  const fn = (f.function ?? '').replace(/\s*\*+$/, '').trim();
  const name = fn.replace(/\(.*$/s, '');
  return name.split('.').pop() ?? name;
}

function classifyFrame(f: TracebackFrame): FrameRole {
  if (f.kind === 'user') return { role: 'user' };
  if (f.kind === 'library') {
    const pkg = f.package ?? '';
    if (INFRASTRUCTURE_PACKAGES.has(pkg)) return { role: 'transparent' };
    const lib =
      libraryOfModule(pkg) ??
      (isLibraryName(pkg) && pkg !== 'None' ? pkg : undefined) ??
      (extensionBase(pkg) ? pkg : undefined);
    return lib ? { role: 'library', library: lib, name: f.module ?? pkg } : { role: 'transparent' };
  }
  const file = (f.file ?? '').replace(/\\/g, '/');
  if (/__autograph_generated_file/.test(file))
    return { role: 'library', library: 'tensorflow/keras', name: 'tensorflow autograph' };
  if (/^<__array_function__ internals>/.test(file)) return { role: 'library', library: 'numpy', name: 'numpy' };
  if (f.module) {
    const top = f.module.split('.')[0]!;
    return INFRASTRUCTURE_PACKAGES.has(top) ? { role: 'transparent' } : { role: 'python' };
  }
  // Compiled frames: `pandas/_libs/index.pyx`, `mtrand.pyx in numpy.random.mtrand…()`.
  const seg = /^([A-Za-z_]\w*)\//.exec(file)?.[1];
  const qual = /^([A-Za-z_]\w*)\./.exec(f.function ?? '')?.[1];
  for (const m of [seg, qual]) {
    const lib = m ? libraryOfModule(m) : undefined;
    if (lib) return { role: 'library', library: lib, name: m! };
  }
  if (/^<.*>$/.test(file) || file === '') return { role: 'transparent' };
  // A library's code run from outside site-packages — a torch hub cache
  // (`~/.cache/torch/hub/pytorch_vision_v0.10.0/torchvision/transforms.py`),
  // a zipped or checked-out copy (`spark/python/lib/pyspark.zip/pyspark/rdd.py`) —
  // sits in a folder named after the library's top-level package.
  // Folder names that are also everyday words (a user's `datasets/` folder) do not count.
  const folders = file.split('/').slice(0, -1);
  for (let i = folders.length - 1; i >= 0; i--) {
    const folder = folders[i]!;
    if (GENERIC_FOLDER_NAMES.has(folder)) continue;
    if (INFRASTRUCTURE_PACKAGES.has(folder)) return { role: 'transparent' };
    const lib = libraryOfModule(folder);
    if (lib) return { role: 'library', library: lib, name: folders.slice(i).join('.') };
    // A source checkout of a library named after its base (`keras-nlp/keras_nlp/…`,
    // installed with `pip install -e`): the repository folder is the package's
    // name spelt with dashes. A user's own folder does not repeat itself so.
    if (i > 0 && extensionBase(folder) && folders[i - 1]!.toLowerCase().replace(/-/g, '_') === folder) {
      return { role: 'library', library: folder, name: folders.slice(i).join('.') };
    }
  }
  // Any other .py file is the user's own helper module.
  return /\.py$/.test(file) ? { role: 'user' } : { role: 'transparent' };
}

interface EntryLibrary {
  library: LibraryName;
  frame: TracebackFrame;
  name: string;
  /** The library of the deepest library frame (where it was raised). */
  raisedIn?: LibraryName;
}

const STRING_LITERAL = /(?:[rbuf]|rb|br)?('''[\s\S]*?'''|"""[\s\S]*?"""|'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*")/gi;

class Analysis {
  private readonly evidence: string[] = [];
  private readonly ename: string;
  private readonly message: string;
  private readonly frames: TracebackFrame[];
  private readonly roles: FrameRole[];
  private readonly aliases = new Map<string, LibraryName>();
  private readonly statement: string;
  private readonly code: string;
  private readonly imports: Set<LibraryName>;

  constructor(private readonly record: LibraryEvidence) {
    const parsed = parseTraceback(record.traceback, { ename: record.ename, evalue: record.evalue });
    // The printed class is module-qualified when a library defines it; trust it only when it is the record's exception.
    const printed = lastExceptionName(record.traceback);
    const same =
      printed !== undefined && printed.split('.').pop()!.toLowerCase() === record.ename.split('.').pop()!.toLowerCase();
    this.ename = same ? printed : record.ename;
    this.message = `${record.evalue}\n${lastLine(record.traceback)}`;
    this.frames = parsed.frames.length > 0 ? parsed.frames : parsed.allFrames;
    this.roles = this.frames.map(classifyFrame);
    this.imports = new Set(
      (record.imports ?? []).map((m) => libraryOfModule(m)).filter((l): l is LibraryName => l !== undefined),
    );
    for (const [alias, lib] of Object.entries(CONVENTIONAL_ALIASES)) this.aliases.set(alias, lib);
    for (const m of record.imports ?? []) {
      const lib = libraryOfModule(m);
      if (lib) this.aliases.set(m, lib);
    }
    // Cells shown in the traceback often include their import lines.
    const shown = parsed.allFrames.filter((f) => f.kind === 'user').flatMap((f) => f.context);
    for (const imp of safeParseImports(shown.join('\n'))) {
      const lib = libraryOfModule(imp.module);
      if (lib && imp.alias !== '*') this.aliases.set(imp.alias, lib);
    }
    const crashFrame = this.crashFrameIndex() >= 0 ? this.frames[this.crashFrameIndex()] : undefined;
    this.statement = crashFrame ? statementOf(crashFrame) : '';
    // Strings blanked so that names inside them are not taken for calls.
    this.code = this.statement.replace(STRING_LITERAL, "''");
  }

  private crashIndex: number | undefined;

  /** The deepest notebook frame (the crashing line), or -1. */
  private crashFrameIndex(): number {
    if (this.crashIndex === undefined) {
      let idx = -1;
      for (let i = 0; i < this.roles.length; i++) if (this.roles[i]!.role === 'user') idx = i;
      this.crashIndex = idx;
    }
    return this.crashIndex;
  }

  decide(): LibraryPrediction {
    const e = this.ename.split('.').pop()!.toLowerCase();
    if (NOTEBOOK_STATE_ERRORS.has(e)) {
      return this.result(
        'None',
        'library.notebook-state',
        `${this.ename}: the notebook's state lacks a name (a cell not run, or run out of order) — no library caused it`,
      );
    }
    if (['syntaxerror', 'indentationerror', 'taberror', 'keyboardinterrupt'].includes(e)) {
      return this.result(
        'None',
        'library.interpreter',
        `${this.ename}: raised by the Python interpreter, not a library`,
      );
    }

    const moved = this.movedSubmodule();
    if (moved) return this.result(moved.library, 'library.moved-submodule', moved.why);
    const environment = this.environmentCause();
    if (environment) return this.result('None', 'library.environment', environment);

    const rerun = this.rerunCell() ?? this.rerunStatement();
    if (rerun) return this.result('None', 'library.rerun', rerun);

    const typo = this.misspelledModuleAttribute();
    if (typo) return this.result('None', 'library.misspelt-attribute', typo);
    const driver = this.callbackDriver();
    if (driver) {
      return this.result(
        driver.library,
        'library.callback',
        `the notebook's line called ${driver.name}, which called back into the notebook's own code (${driver.callback}) where it crashed: the code ran under ${driver.library}'s protocol`,
      );
    }
    const other = this.otherPackageEntry();
    if (other) return this.result('None', 'library.other-package', other);
    const entry = this.entryLibrary();
    if (!entry || entry.implicit) {
      const none = this.noneValue();
      if (none) return this.result('None', 'library.none-value', none);
    }
    if (entry && !entry.implicit) {
      const raised = entry.raisedIn && entry.raisedIn !== entry.library ? ` (raised inside ${entry.raisedIn})` : '';
      const wrapper = this.wrapperOver(entry.library);
      if (wrapper) {
        return this.result(
          wrapper.library,
          'library.wrapper',
          `the crashing line calls a ${wrapper.name} object through ${entry.library}'s call machinery: ${wrapper.name} runs on ${entry.library}, the more specific library`,
        );
      }
      return this.result(
        entry.library,
        entry.raisedIn === entry.library ? 'library.entry-same' : 'library.entry',
        `the crashing line calls into ${entry.name}: first library frame after the notebook's frame${raised}`,
      );
    }
    if (entry?.raisedIn) this.evidence.push(`raised in ${entry.raisedIn} (deepest library frame)`);

    const byException = this.exceptionLibrary();
    if (byException) return this.result(byException.library, 'library.exception-class', byException.why);

    if (e === 'importerror') {
      const m = /cannot import name '\w+' from '([\w.]+)'/.exec(this.message);
      const lib = m ? libraryOfModule(m[1]!) : undefined;
      if (lib)
        return this.result(
          lib,
          'library.cannot-import',
          `${m![1]} (${lib}) no longer or not yet has the name imported`,
        );
    }

    const calledModule = this.calledModule();
    if (calledModule) return this.result(calledModule.library, 'library.called-module', calledModule.why);

    const byFunction = this.namedFunction();
    if (byFunction) return this.result(byFunction.library, 'library.named-function', byFunction.why);

    const byType = this.objectType();
    if (byType) return this.result(byType.library, 'library.object-type', byType.why);

    const strong = this.signature('strong');
    if (strong) return this.result(strong.library, 'library.strong-message', strong.why);

    const call = this.aliasCall();
    if (call) return this.result(call.library, 'library.alias-call', call.why);

    const subscript = this.subscriptOrConvention();
    if (subscript) return this.result(subscript.library, 'library.subscript', subscript.why);

    const weak = this.signature('weak');
    if (weak) {
      if (this.showsLibrary(weak.library)) return this.result(weak.library, 'library.weak-message', weak.why);
      this.evidence.push(
        `${weak.why}, but no code the traceback shows uses ${weak.library}: the array could come from anywhere`,
      );
    }

    if (entry)
      return this.result(
        entry.library,
        'library.implicit',
        `only an implicit call (${frameFunctionName(entry.frame)}) reached ${entry.name}`,
      );

    const method = this.methodCall();
    if (method) return this.result(method.library, 'library.method', method.why);

    if (this.roles.some((r) => r.role === 'python')) {
      return this.result(
        'None',
        'library.stdlib',
        'raised inside the Python standard library, with no library involved',
      );
    }
    return this.result('None', 'library.nothing', 'nothing in the traceback points at a library');
  }

  /**
   * Evidence that the environment caused the crash: a file, folder, module,
   * permission, disk or network the notebook needed and did not have. Looked
   * for in the exception raised to the user and every exception chained to it
   * (a library's "URL fetch failure" over a name-resolution error).
   */
  private environmentCause(): string | undefined {
    const classes = [this.ename, ...this.chainedExceptionNames()].map((n) => n.split('.').pop()!.toLowerCase());
    for (const c of classes) {
      const why = ENVIRONMENT_EXCEPTIONS[c];
      if (why) return `${c === classes[0] ? this.ename : c} means ${why}: the environment, not a library, caused it`;
    }
    const text = this.exceptionText();
    for (const [re, why] of ENVIRONMENT_MESSAGES) {
      const m = re.exec(text);
      if (m)
        return `"${truncate(m[0].trim(), 60)}" means ${why}: the environment, not a library, caused it (a library that reports it did not cause it)`;
    }
    return undefined;
  }

  /**
   * `No module named 'lib.sub'` for a submodule the crashing line itself
   * imports from a library the notebook has: the library moved or removed it
   * (an API change). A missing top-level module, or one the library imports
   * internally, is the installation's doing (environmentCause).
   */
  private movedSubmodule(): { library: LibraryName; why: string } | undefined {
    const m = /No module named '([\w.]+)'/.exec(this.message);
    if (!m || !m[1]!.includes('.')) return undefined;
    const mod = m[1]!;
    const lib = libraryOfModule(mod);
    if (!lib) return undefined;
    const imported = safeParseImports(this.statement).map((i) => i.module);
    const asWritten = imported.some((i) => i === mod || mod.startsWith(`${i}.`) || i.startsWith(`${mod}.`));
    if (!asWritten || mod.split('.').some((part) => part.startsWith('_'))) return undefined;
    return {
      library: lib,
      why: `the crashing line imports ${mod}, which ${lib} does not have (moved or removed by the library)`,
    };
  }

  /**
   * Raised in the user's own line on a variable that holds None: the
   * notebook's state or code, the library was never reached.
   */
  private noneValue(): string | undefined {
    if (
      /'?NoneType'? object (?:is not (?:callable|subscriptable|iterable)|has no attribute|cannot be interpreted)|unsupported operand type\(s\) for .*'NoneType'/.test(
        this.record.evalue,
      )
    ) {
      return `a value of the notebook's own is None (${truncate(this.record.evalue, 60)}) on the crashing line: the notebook's state or code, not a library`;
    }
    return undefined;
  }

  /**
   * A KeyError for a key that a later line of the crashing cell removes
   * (`df = df.drop(['Amount'], axis=1)` below `df['Amount']`): the cell's
   * first run removed it, so the crash is the cell running again on data it
   * had already changed — the notebook's state, whichever library raised it.
   * Only top-level lines of the cell count: a removal inside a loop or a
   * function can take the key away within a single run.
   */
  private rerunCell(): string | undefined {
    if (this.ename.split('.').pop()!.toLowerCase() !== 'keyerror') return undefined;
    const i = this.crashFrameIndex();
    const frame = i >= 0 ? this.frames[i] : undefined;
    if (!frame || frame.kind !== 'user' || !/^(?:<module>|<cell line: \d+>.*)?$/.test((frame.function ?? '').trim()))
      return undefined;
    const code = frame.code ?? '';
    const at = frame.context.findIndex((l) => l.trim() === code.trim());
    if (at < 0 || /^\s/.test(frame.context[at]!)) return undefined;
    const later = frame.context
      .slice(at + 1)
      .filter((l) => !/^\s/.test(l))
      .join('\n');
    const key = quotedKeys(this.record.evalue).find((k) => removesKey(later, k));
    return key === undefined
      ? undefined
      : `a later line of the crashing cell removes '${key}': the cell ran before and is running again on data it already changed — the notebook's state, not a library`;
  }

  /**
   * A statement that removes keys from the very data it reads and keeps the
   * result under the same name (`df = df.drop([...])`, `df.drop(...,
   * inplace=True)`, `df = pd.get_dummies(df, columns=[...])`, `del df['k']`),
   * failing because **every** key it names is already gone: the signature of
   * the statement's own earlier run. When the keys were misspelt or never in
   * that data (a test set without a training column), usually only some of
   * them are missing, and the crash stays the library's.
   */
  private rerunStatement(): string | undefined {
    if (this.ename.split('.').pop()!.toLowerCase() !== 'keyerror') return undefined;
    const s = this.statement;
    const removal =
      /^(\w+)\s*=\s*\1\s*\.\s*drop\s*\(([\s\S]*)\)\s*$/.exec(s) ??
      /^(\w+)\s*\.\s*drop\s*\(([\s\S]*\binplace\s*=\s*True[\s\S]*)\)\s*$/.exec(s) ??
      /^(\w+)\s*=\s*(?:\w+\.)?get_dummies\s*\(\s*\1\b([\s\S]*)\)\s*$/.exec(s) ??
      /^del\s+(\w+)(\[[\s\S]*\])\s*$/.exec(s);
    if (!removal) return undefined;
    const named = [...removal[2]!.matchAll(/'([^'\n]+)'|"([^"\n]+)"/g)]
      .map((m) => (m[1] ?? m[2])!)
      .filter((k) => !/^(?:columns|index|ignore|raise)$/.test(k));
    const missing = quotedKeys(this.record.evalue.replace(/dtype='[^']*'/g, ''));
    if (named.length === 0 || missing.length === 0) return undefined;
    const same = new Set(named).size === new Set(missing).size && missing.every((k) => named.includes(k));
    return same
      ? `the crashing statement removes ${named.map((k) => `'${k}'`).join(', ')} from ${removal[1]} and keeps the result as ${removal[1]}, and every one of them is already gone: it ran before — the notebook's state, not a library`
      : undefined;
  }

  /**
   * A module attribute that misspells one of the library's public names: the notebook's typo, not the library's doing.
   */
  private misspelledModuleAttribute(): string | undefined {
    // `np.asarry`, and its import form: `from sklearn.preprocessing import LabelEncoderder`.
    const attr = /module '([\w.]+)' has no attribute '(\w+)'/.exec(this.message);
    const imp = /importerror/i.test(this.ename)
      ? /cannot import name '(\w+)' from '([\w.]+)'/.exec(this.message)
      : null;
    const typo = attr ? { module: attr[1]!, name: attr[2]! } : imp ? { module: imp[2]!, name: imp[1]! } : undefined;
    if (!typo) return undefined;
    const lib = libraryOfModule(typo.module);
    // A name typed into an import line is often longer off (a repeated syllable): a quarter of it may differ.
    const close = (name: string) =>
      isMisspelling(typo.name, name) ||
      (imp !== null && name.length >= 8 && editDistance(typo.name, name) <= Math.floor(name.length / 4));
    const near = lib ? MODULE_PUBLIC_NAMES[lib]?.find(close) : undefined;
    return lib && near
      ? `${typo.module}.${typo.name} is a misspelling of ${typo.module}.${near}: the notebook's typo, not ${lib}'s doing`
      : undefined;
  }

  /**
   * A library built on `base` that `base` dispatched straight into: the
   * crashing line called an object of the wrapper (a transformers model, a
   * torchvision network) through the base's call machinery
   * (`Module._call_impl`, Keras's `error_handler`). A wrapper reached later,
   * through the base's own work (a DataLoader fetching from a torchvision
   * dataset, a Keras training step running a transformers layer), leaves the
   * crash the base's.
   */
  private wrapperOver(base: LibraryName): { library: LibraryName; name: string } | undefined {
    let i = this.crashFrameIndex() + 1;
    while (i < this.roles.length && this.roles[i]!.role !== 'library') i++;
    let dispatched = false;
    for (; i < this.roles.length; i++) {
      const r = this.roles[i]!;
      if (r.role === 'transparent') continue;
      if (r.role !== 'library') return undefined;
      if (r.library === base && DISPATCH_FUNCTION.test(frameFunctionName(this.frames[i]!))) {
        dispatched = true;
        continue;
      }
      if (dispatched && r.library !== base && WRAPPER_LIBRARIES[r.library]?.includes(base))
        return { library: r.library, name: topName(r.name) };
      return undefined;
    }
    return undefined;
  }

  /** Exception class names printed for the earlier exceptions of the chain. */
  private chainedExceptionNames(): string[] {
    return parseTraceback(this.record.traceback, { ename: this.record.ename, evalue: this.record.evalue }).chained;
  }

  /** The exception lines of the whole chain (`Name: message`, unindented) and the record's own message. */
  private exceptionText(): string {
    const lines = this.record.traceback
      .flatMap((t) => t.split('\n'))
      .filter((l) => /^[A-Za-z_][\w.]*(?:Error|Exception|Warning|Exit|Interrupt)\b/.test(l));
    return [`${this.ename}: ${this.record.evalue}`, ...lines].join('\n');
  }

  private result(library: LibraryName, rule: LibraryRule, why: string): LibraryPrediction {
    const extension = isLibraryName(library) ? undefined : extensionBase(library);
    const more = extension
      ? [
          `${library} is outside the canonical list, built on ${extension.base} and named after it: labelled by its own name, the more specific library`,
        ]
      : [];
    return { library, confidence: RULE_CONFIDENCE[rule], rule, evidence: [why, ...more, ...this.evidence] };
  }

  /**
   * The crashing line called an installed package that is none of the
   * libraries JunoBench labels (a PDF reader, a cloud client, a game
   * environment) and no ML library ran below it: the crash is that package's
   * or the notebook's, not an ML library's.
   */
  private otherPackageEntry(): string | undefined {
    const start = this.crashFrameIndex() + 1;
    const first = this.frames
      .slice(start)
      .find((f) => f.kind === 'library' && !INFRASTRUCTURE_PACKAGES.has(f.package ?? ''));
    if (!first?.package || libraryOfModule(first.package) || (isLibraryName(first.package) && first.package !== 'None'))
      return undefined;
    if (this.roles.slice(start).some((r) => r.role === 'library')) return undefined;
    return `the crashing line calls ${first.package}, which is none of the ML libraries, and no ML library runs below it`;
  }

  /**
   * The library the notebook's line called when that library called back into
   * the user's own code (a model's `forward`, a transform, a collate function,
   * an objective) and the crash happened there or below: the user's code ran
   * under that library's protocol, and annotators label the library the
   * notebook called. Iteration and conversion protocols (`for x in loader`)
   * are not calls the line made, and a decorator wrapper that hands over to
   * another library is looked through, as for the entry library.
   */
  private callbackDriver(): { library: LibraryName; name: string; callback: string } | undefined {
    const outer = this.roles.findIndex((r) => r.role === 'user');
    const deep = this.crashFrameIndex();
    if (outer < 0 || deep <= outer) return undefined;
    for (let i = outer + 1; i < deep; i++) {
      const r = this.roles[i]!;
      if (r.role !== 'library') continue;
      const f = this.frames[i]!;
      if (IMPLICIT_DUNDERS.has(frameFunctionName(f))) return undefined;
      if (WRAPPER_FUNCTION.test(f.function ?? '')) {
        const next = this.roles
          .slice(i + 1, deep)
          .find((x): x is Extract<FrameRole, { role: 'library' }> => x.role === 'library');
        if (next && next.library !== r.library) continue;
      }
      return {
        library: r.library,
        name: topName(r.name),
        callback: frameFunctionName(this.frames[deep]!) || 'a function of its own',
      };
    }
    return undefined;
  }

  /** First library frame after the crashing notebook frame, looking through pass-through frames. */
  private entryLibrary(): (EntryLibrary & { implicit: boolean }) | undefined {
    const start = this.crashFrameIndex() + 1;
    let raisedIn: LibraryName | undefined;
    for (let i = this.roles.length - 1; i >= start; i--) {
      const r = this.roles[i]!;
      if (r.role === 'library') {
        raisedIn = r.library;
        break;
      }
    }
    let implicit: EntryLibrary | undefined;
    for (let i = start; i < this.roles.length; i++) {
      const r = this.roles[i]!;
      if (r.role !== 'library') continue;
      const f = this.frames[i]!;
      const fn = frameFunctionName(f);
      if (IMPLICIT_DUNDERS.has(fn)) {
        implicit ??= { library: r.library, frame: f, name: r.name, ...(raisedIn ? { raisedIn } : {}) };
        continue;
      }
      if (WRAPPER_FUNCTION.test(f.function ?? '')) {
        const next = this.roles
          .slice(i + 1)
          .find((x): x is Extract<FrameRole, { role: 'library' }> => x.role === 'library');
        if (next && next.library !== r.library) continue;
      }
      return {
        library: r.library,
        frame: f,
        name: topName(r.name),
        implicit: false,
        ...(raisedIn ? { raisedIn } : {}),
      };
    }
    return implicit ? { ...implicit, name: topName(implicit.name), implicit: true } : undefined;
  }

  private exceptionLibrary(): { library: LibraryName; why: string } | undefined {
    const dotted = /^([A-Za-z_]\w*)\./.exec(this.ename)?.[1];
    const byModule = dotted ? libraryOfModule(dotted) : undefined;
    if (byModule) return { library: byModule, why: `the exception class ${this.ename} is defined in ${byModule}` };
    const bare = this.ename.split('.').pop()!.toLowerCase();
    const lib = LIBRARY_EXCEPTIONS[bare];
    return lib ? { library: lib, why: `${this.ename.split('.').pop()} is an exception class of ${lib}` } : undefined;
  }

  /** `'module' object is not callable`: the module alias the crashing line calls (`sns(df)`). */
  private calledModule(): { library: LibraryName; why: string } | undefined {
    if (!/'module' object is not callable/.test(this.record.evalue)) return undefined;
    for (const m of this.code.matchAll(/(?<![\w.])([A-Za-z_][\w.]*)\s*\(/g)) {
      const root = m[1]!.split('.')[0]!;
      const lib = this.aliases.get(m[1]!) ?? this.aliases.get(root);
      if (lib) return { library: lib, why: `the crashing line calls the module ${m[1]} (${lib}) as a function` };
    }
    return undefined;
  }

  /** `f() takes/got/missing …`: resolve f on the crashing line. */
  private namedFunction(): { library: LibraryName; why: string } | undefined {
    const m =
      /(?:^|\s)((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*)\(\) (takes|got|missing|received|argument|must|returned|should)/.exec(
        this.record.evalue,
      );
    if (!m) return undefined;
    const parts = m[1]!.split('.');
    let fn = parts.pop()!;
    if (fn === '__init__' || fn === '__call__') {
      if (parts.length === 0) return undefined;
      fn = parts.pop()!;
    }
    const lib = WELL_KNOWN_NAMES[fn] ?? LIBRARY_METHODS[fn] ?? this.resolveCallee(fn);
    return lib
      ? { library: lib, why: `${fn}() named by the ${this.ename} is ${lib}'s (called on the crashing line)` }
      : undefined;
  }

  /** The library of `alias.….fn(` or a bare `fn(` on the crashing line. */
  private resolveCallee(fn: string): LibraryName | undefined {
    const re = new RegExp(`(?<![\\w.])((?:[A-Za-z_]\\w*\\s*\\.\\s*)*)${escapeRegExp(fn)}\\s*\\(`, 'g');
    for (const m of this.code.matchAll(re)) {
      const chain = m[1]!.replace(/\s+/g, '');
      if (chain === '') {
        const lib = this.aliases.get(fn);
        if (lib) return lib;
        continue;
      }
      const root = chain.split('.')[0]!;
      const lib = this.aliases.get(root);
      if (lib) return lib;
    }
    return undefined;
  }

  private objectType(): { library: LibraryName; why: string } | undefined {
    const mod = /module '([\w.]+)' has no attribute/.exec(this.message);
    if (mod) {
      const lib = libraryOfModule(mod[1]!);
      if (lib) return { library: lib, why: `the module ${mod[1]} (${lib}) lacks the attribute used` };
    }
    const t =
      /(?:'([\w.]+)' object|type object '([\w.]+)') (?:has no attribute|is not (?:callable|subscriptable|iterable))/.exec(
        this.message,
      );
    const type = t?.[1] ?? t?.[2];
    if (!type) return undefined;
    for (const [re, lib] of OBJECT_TYPES) {
      if (re.test(type)) return { library: lib, why: `the object of type ${type} is ${lib}'s` };
    }
    return undefined;
  }

  private signature(strength: 'strong' | 'weak'): { library: LibraryName; why: string } | undefined {
    for (const [re, lib, s] of MESSAGE_SIGNATURES) {
      if (s !== strength) continue;
      const m = re.exec(this.message);
      if (m)
        return {
          library: lib,
          why: `the message "${truncate(m[0], 60)}" is ${lib}'s${strength === 'weak' ? ' (a generic array error)' : ''}`,
        };
    }
    return undefined;
  }

  /** Leftmost module-alias expression (`plt.title(`) or well-known imported name on the crashing line. */
  private aliasCall(): { library: LibraryName; why: string } | undefined {
    let best: { at: number; library: LibraryName; what: string } | undefined;
    for (const m of this.code.matchAll(/(?<![\w.])([A-Za-z_]\w*)\s*(\.\s*[A-Za-z_]\w*|\()/g)) {
      const name = m[1]!;
      const isCall = m[2] === '(';
      const lib = isCall ? (WELL_KNOWN_NAMES[name] ?? this.importedName(name)) : this.aliases.get(name);
      if (!lib) continue;
      if (!best || m.index! < best.at)
        best = { at: m.index!, library: lib, what: isCall ? `${name}(` : `${name}${m[2]!.replace(/\s+/g, '')}` };
    }
    return best ? { library: best.library, why: `the crashing line uses ${best.what}… (${best.library})` } : undefined;
  }

  /**
   * Whether the code the traceback shows (the notebook's lines and the user's
   * own modules) uses `library` through one of its aliases (`np.`) or imports
   * it. A generic array message raised in the user's own line is NumPy's only
   * with NumPy in sight: the study counts a crash as a library's when the code
   * imports or calls it, or the library raised it.
   */
  private showsLibrary(library: LibraryName): boolean {
    const code = this.frames
      .filter((_, i) => this.roles[i]!.role === 'user')
      .flatMap((f) => f.context)
      .join('\n')
      .replace(STRING_LITERAL, "''");
    if (safeParseImports(code).some((imp) => libraryOfModule(imp.module) === library)) return true;
    for (const [alias, lib] of this.aliases) {
      if (lib === library && new RegExp(`(?<![\\w.])${escapeRegExp(alias)}\\s*\\.`).test(code)) return true;
    }
    return false;
  }

  /** A bare name bound by an import shown in the traceback (`from sklearn.metrics import f1_score`). */
  private importedName(name: string): LibraryName | undefined {
    const lib = this.aliases.get(name);
    return lib && !(name in CONVENTIONAL_ALIASES) ? lib : undefined;
  }

  /** The object a KeyError/IndexError subscripts, or a conventionally named variable on the line. */
  private subscriptOrConvention(): { library: LibraryName; why: string } | undefined {
    const e = this.ename.split('.').pop()!.toLowerCase();
    const receivers: string[] = [];
    if (e === 'keyerror') {
      const key = /^\s*['"]?(.*?)['"]?\s*$/s.exec(this.record.evalue)?.[1] ?? '';
      if (key !== '') {
        const re = new RegExp(
          `([A-Za-z_][\\w.]*)\\s*\\[\\s*(?:['"]${escapeRegExp(key)}['"]|${escapeRegExp(key)})\\s*\\]`,
          'g',
        );
        for (const m of this.statement.matchAll(re)) receivers.push(m[1]!);
      }
    }
    if (e === 'indexerror') {
      const subs = [...this.code.matchAll(/([A-Za-z_][\w.]*)\s*\[/g)].map((m) => m[1]!);
      if (subs.length === 1) receivers.push(subs[0]!);
    }
    for (const r of receivers) {
      const lib = conventionalLibrary(r);
      if (lib)
        return { library: lib, why: `the ${this.ename} comes from subscripting ${r}, conventionally a ${lib} object` };
    }
    let best: { at: number; library: LibraryName; name: string } | undefined;
    for (const m of this.code.matchAll(/(?<![\w.])([A-Za-z_]\w*(?:\.history)?)\s*[.[]/g)) {
      const lib = conventionalLibrary(m[1]!);
      if (lib && (!best || m.index! < best.at)) best = { at: m.index!, library: lib, name: m[1]! };
    }
    return best
      ? {
          library: best.library,
          why: `the crashing line works on ${best.name}, conventionally a ${best.library} object`,
        }
      : undefined;
  }

  private methodCall(): { library: LibraryName; why: string } | undefined {
    let best: { at: number; library: LibraryName; name: string } | undefined;
    const ambiguous: Array<{ at: number; name: string }> = [];
    for (const m of this.code.matchAll(/\.\s*([A-Za-z_]\w*)\s*[([]?/g)) {
      const name = m[1]!;
      const lib = LIBRARY_METHODS[name];
      if (lib) {
        if (!best || m.index! < best.at) best = { at: m.index!, library: lib, name };
      } else if (AMBIGUOUS_METHODS[name]) {
        ambiguous.push({ at: m.index!, name });
      }
    }
    if (best) return { library: best.library, why: `the crashing line calls .${best.name}, a ${best.library} method` };
    for (const a of ambiguous) {
      const candidates = AMBIGUOUS_METHODS[a.name]!.filter((l) => this.imports.has(l));
      if (candidates.length === 1) {
        return { library: candidates[0]!, why: `.${a.name} is ${candidates[0]}'s among the notebook's imports` };
      }
    }
    return undefined;
  }
}

/**
 * `asarry` for `asarray`, `dataframe` for `DataFrame`: one edit or only the case apart, and not a prefix (`float` of
 * `float64`).
 */
function isMisspelling(written: string, name: string): boolean {
  if (written === name) return false;
  if (written.toLowerCase() === name.toLowerCase()) return true;
  if (Math.min(written.length, name.length) < 5 || name.startsWith(written)) return false;
  return editDistance(written, name) === 1;
}

function conventionalLibrary(name: string): LibraryName | undefined {
  for (const [re, lib] of CONVENTIONAL_VARIABLES) if (re.test(name)) return lib;
  return undefined;
}

/** The crashing statement: the arrowed line and its continuation lines until brackets balance. */
function statementOf(frame: TracebackFrame): string {
  const code = frame.code ?? '';
  const i = frame.context.findIndex((l) => l.trim() === code.trim());
  if (i < 0) return code;
  const lines = [frame.context[i]!];
  let depth = bracketDepth(frame.context[i]!);
  for (let j = i + 1; depth > 0 && j < frame.context.length && lines.length < 12; j++) {
    lines.push(frame.context[j]!);
    depth += bracketDepth(frame.context[j]!);
  }
  return lines.map((l) => l.trim()).join(' ');
}

function bracketDepth(line: string): number {
  let d = 0;
  for (const c of line.replace(STRING_LITERAL, "''").replace(/#.*$/, '')) {
    if (c === '(' || c === '[' || c === '{') d++;
    else if (c === ')' || c === ']' || c === '}') d--;
  }
  return d;
}

function safeParseImports(source: string): Array<{ module: string; alias: string }> {
  try {
    return parseImports(source);
  } catch {
    return [];
  }
}

function lastLine(traceback: readonly string[]): string {
  for (let i = traceback.length - 1; i >= 0; i--) {
    const lines = traceback[i]!.split('\n').filter((l) => l.trim() !== '');
    if (lines.length > 0) return lines[lines.length - 1]!.trim();
  }
  return '';
}

/** The exception class as the last `Name: message` line prints it (module-qualified when it is). */
function lastExceptionName(traceback: readonly string[]): string | undefined {
  const lines = traceback.flatMap((t) => t.split('\n'));
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = /^([A-Za-z_][\w.]*(?:Error|Exception|Warning|Exit|Interrupt))(?::|$)/.exec(lines[i]!.trim());
    if (m && !/^\s/.test(lines[i]!)) return m[1];
  }
  return undefined;
}

function topName(name: string): string {
  return name.split('.')[0] ?? name;
}

function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
