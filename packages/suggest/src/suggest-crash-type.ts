import { stripAnsi, type CrashType } from '@junobench/core';
import { parseImports } from '@junobench/notebook';
import type { CrashFacts } from './crash-facts.js';
import { CONVENTIONAL_ALIASES } from './library-knowledge.js';
import { decide, truncate, type RuleDecision } from './suggestion-rule.js';

/*
 * JunoBench's crash types refine the exception class by what the message
 * says: a ValueError is a tensor shape mismatch, an unsupported broadcast, a
 * feature name mismatch, a data value violation, an invalid argument or a
 * plain value error. The message families below are facts about the
 * libraries' error messages, checked in order (the more specific first).
 */
const BROADCAST = /could not be broadcast|could not broadcast|not broadcastable|broadcast shapes|broadcastable/i;
const FEATURE_NAMES =
  /feature names? (?:should|must|unseen|seen at fit)|feature_names mismatch|features?, but \w+ is expecting|columns are missing|Could not interpret (?:input|value)|not in list of feature names|refers to an Operation, not a Tensor/i;
const SHAPE =
  /\bshapes?\b|dimension|\bndim\b|size of tensor|mat1 and mat2|not aligned|Expected \d+D array|inconsistent numbers of samples|size-incompatible|incompatible with (?:the )?layer|Incompatible shapes|expected input\[|to have \d+ channels|cannot reshape|same first dimension|size mismatch|must match the size|Input to reshape|value per channel|matrices are not aligned|expected (?:axis|input) .* to have|rank \d|FixedLocator locations|loading state_dict|batch_size \(\d+\) to match|expected sequence of length/i;
const DATA_VALUE =
  /contains NaN|NaN, infinity|infinity or a value too large|Unknown label type|continuous(?:-multioutput)? (?:format|values)|previously unseen label|y contains|non-finite|not finite|out of bounds nanosecond|columns overlap|must be non-negative|Negative values|Number of classes, \d+, does not match|contains only one class|only one class|is too large\. It must be less|invalid Matplotlib date|less than \d+ and is an invalid/i;
const INVALID_ARGUMENT =
  /unexpected keyword argument|missing \d+ required (?:positional|keyword)|takes (?:from )?\d+ (?:to \d+ )?positional arguments? but|got multiple values for|got an unexpected|invalid combination of arguments|argument must be|Invalid parameter|is not a valid|not understood|must be (?:one of|in|a|an) |supports only|Unknown (?:loss|optimizer|activation|metric|layer|initializer)|Invalid value|expected one of|should be one of|not supported|Could not interpret (?:optimizer|loss|activation|metric|initializer) identifier|unrecognized arguments|received an invalid|Cannot subset columns with a tuple|Invalid argument|got an? (?:invalid|unknown)|not a valid (?:value|option|string)/i;
const VALUE_CONVERSION =
  /could not convert|invalid literal|unpack|cannot convert|Unable to parse|setting an array element with a sequence|dictionary update sequence/i;
const IO_MESSAGE =
  /No such file or directory|Unable to (?:open|create|synchronously open) file|No file or directory found|does not exist|not found\.|cannot identify image file|Is a directory|Permission denied|Read-only file system|Expecting value: line|Error tokenizing data|Unsupported format|file format|Can't find a vocabulary file|No columns to parse from file|not a zip file|Excel file format/i;
const IO_CLASSES = new Set([
  'filenotfounderror',
  'fileexistserror',
  'isadirectoryerror',
  'notadirectoryerror',
  'permissionerror',
  'ioerror',
  'jsondecodeerror',
  'unpicklingerror',
  'emptydataerror',
  'parsererror',
  'unidentifiedimageerror',
  'badzipfile',
  'incompleteparseerror',
  'xlrderror',
  'eoferror',
]);
const INITIALIZATION =
  /is not fitted yet|must compile (?:your|the) model|has not been built|needs to be built|must be built|call(?:ed)? (?:`?fit`?|build)\b.* (?:before|first)|This model has not yet been built|weights? (?:have|has) not (?:yet )?been created|already been initialized|cannot be called more than once|before calling `?(?:fit|predict|transform)/i;
const TYPE_OPERATION =
  /not subscriptable|not callable|not iterable|unhashable|unsupported operand|can only concatenate|object cannot be interpreted|must be str, not|can't multiply sequence|not supported between instances/i;

/*
 * Carrier exceptions print the real failure below their own line, and the
 * crash type is that failure's. TensorFlow's op errors (`InvalidArgumentError:
 * Graph execution error:`) are followed by what the op reported (a matrix of
 * the wrong size, an image file it cannot decode), and a Python exception
 * raised inside a `py_function` is re-raised under the op error's class with
 * its own name in the message. Keras's `Exception encountered when calling
 * layer …` wraps what the (innermost) layer raised, followed by the call's
 * arguments — shapes that describe the inputs, not the failure.
 */
const TF_OP_ERRORS: ReadonlySet<string> = new Set(['invalidargumenterror']);
const EMBEDDED_EXCEPTION = /^\s*((?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)):[ \t]*(.*)$/m;

/** The lines TensorFlow prints below its op error's line: the op's own report. */
function tfOpReport(f: CrashFacts): string {
  const lines = f.input.traceback.flatMap((t) => stripAnsi(t).split('\n'));
  let at = -1;
  lines.forEach((l, i) => {
    if (l.toLowerCase().startsWith(`${f.eclass}:`) || l.toLowerCase().startsWith(`${f.eclass} `)) at = i;
  });
  return at < 0
    ? ''
    : lines
        .slice(at + 1)
        .filter((l) => !/^\s*\[\[|^\s*\d+ (?:successful|derived)|^\s*Node: /.test(l))
        .join('\n');
}

const KERAS_LAYER_CALL = 'Exception encountered when calling layer';

/** What the innermost layer reported under Keras's layer-call carrier, without the call arguments it lists. */
function kerasLayerReport(f: CrashFacts): string {
  const text = [f.message, ...f.input.traceback.map(stripAnsi)].join('\n');
  const at = text.lastIndexOf(KERAS_LAYER_CALL);
  if (at < 0) return '';
  const body = text.slice(at).split('\n').slice(1).join('\n');
  const end = body.indexOf('Call arguments received');
  return end < 0 ? body : body.slice(0, end);
}

export function suggestCrashType(f: CrashFacts): RuleDecision<CrashType> {
  const e = f.eclass;
  if (TF_OP_ERRORS.has(e)) {
    const inner = EMBEDDED_EXCEPTION.exec(f.message);
    const name = inner?.[1]?.split('.').pop();
    if (inner && name && !TF_OP_ERRORS.has(name.toLowerCase())) {
      const d = suggestCrashType({
        ...f,
        ename: name,
        eclass: name.toLowerCase(),
        message: inner[2]!,
        exceptionText: `${name}: ${inner[2]!}`,
      });
      return {
        ...d,
        evidence: [
          `${f.ename} re-raised a ${name} from the code TensorFlow ran: the crash is that ${name}`,
          ...d.evidence,
        ],
      };
    }
  }
  const carried = TF_OP_ERRORS.has(e) ? tfOpReport(f) : kerasLayerReport(f);
  const msg = carried ? `${f.exceptionText}\n${carried}` : f.exceptionText;
  if (e === 'nameerror' || e === 'unboundlocalerror') {
    const name = f.missingName;
    if (name && isImportedName(name, f)) {
      return decide(
        'module not found',
        'crashType.name-is-import',
        `${f.ename}: ${name} is a name a notebook imports (${importWhy(name, f)}) — the import did not run`,
      );
    }
    return decide(
      'variable not found',
      'crashType.name',
      `${f.ename}: ${name ? `the variable ${name}` : 'a name'} is not defined`,
    );
  }
  if (
    e === 'modulenotfounderror' ||
    (e === 'importerror' && /No module named|cannot import name|install/i.test(f.message))
  ) {
    return decide('module not found', 'crashType.import', `${f.ename}: ${truncate(f.message, 80)}`);
  }
  if (IO_CLASSES.has(e))
    return decide('io error', 'crashType.io-class', `${f.ename} is an error reading or writing a file`);
  if (e === 'keyerror' || e === 'notfounderror') {
    if (e === 'notfounderror' && IO_MESSAGE.test(msg))
      return decide(
        'io error',
        'crashType.io-message',
        `"${truncate(IO_MESSAGE.exec(msg)![0], 60)}": a file that is not there`,
      );
    return decide('key error', 'crashType.key', `${f.ename}: the key ${truncate(f.message, 60)} is not there`);
  }
  if (e === 'indexerror' || e === 'indexingerror')
    return decide('index error', 'crashType.index', `${f.ename}: ${truncate(f.message, 80)}`);
  if (e === 'attributeerror')
    return decide('attribute error', 'crashType.attribute', `${f.ename}: ${truncate(f.message, 80)}`);
  if (e === 'notfittederror' || INITIALIZATION.test(msg)) {
    return decide(
      'model initialization error',
      'crashType.initialization',
      `${f.ename}: "${truncate(INITIALIZATION.exec(msg)?.[0] ?? f.message, 60)}" — a model used before it was fitted, built or compiled`,
    );
  }
  if (
    (e === 'oserror' || e === 'valueerror' || e === 'runtimeerror' || e === 'exception' || TF_OP_ERRORS.has(e)) &&
    IO_MESSAGE.test(msg)
  ) {
    return decide(
      'io error',
      'crashType.io-message',
      `"${truncate(IO_MESSAGE.exec(msg)![0], 60)}": reading or writing a file failed`,
    );
  }
  if (f.library.rule === 'library.environment') {
    return decide(
      'io error',
      'crashType.environment',
      `${truncate(f.library.evidence[0] ?? '', 100)}: a resource outside the code (a file, a download) was not there`,
    );
  }
  if (/OpenCV\(|\(-215:Assertion failed\)/.test(msg)) {
    return decide(
      'data value violation',
      'crashType.opencv-assertion',
      "an OpenCV assertion on its input: the image or array given does not meet the function's requirements",
    );
  }
  if (BROADCAST.test(msg))
    return decide(
      'unsupported broadcast',
      'crashType.broadcast',
      `"${truncate(BROADCAST.exec(msg)![0], 60)}": arrays that cannot be broadcast together`,
    );
  if (FEATURE_NAMES.test(msg))
    return decide(
      'feature name mismatch',
      'crashType.feature-names',
      `"${truncate(FEATURE_NAMES.exec(msg)![0], 60)}": the features or columns named differ from those expected`,
    );
  if (e === 'typeerror') {
    if (INVALID_ARGUMENT.test(msg))
      return decide(
        'invalid argument',
        'crashType.type-argument',
        `${f.ename} about a call's arguments: "${truncate(INVALID_ARGUMENT.exec(msg)![0], 60)}"`,
      );
    if (TYPE_OPERATION.test(msg))
      return decide(
        'type error',
        'crashType.type-operation',
        `"${truncate(TYPE_OPERATION.exec(msg)![0], 60)}": an operation on the wrong type`,
      );
    // Raised inside a library, a TypeError is the library refusing what it was given.
    if (f.libraryFrames.length > 0 && f.library.library !== 'None') {
      return decide(
        'invalid argument',
        'crashType.type-in-library',
        `${f.ename} raised inside ${f.library.library}: an argument of a type the API does not take`,
      );
    }
    return decide('type error', 'crashType.type', `${f.ename}: ${truncate(f.message, 80)}`);
  }
  if (SHAPE.test(msg))
    return decide(
      'tensor shape mismatch',
      'crashType.shape',
      `"${truncate(SHAPE.exec(msg)![0], 60)}" in the message: shapes or sizes that do not fit`,
    );
  if (DATA_VALUE.test(msg))
    return decide(
      'data value violation',
      'crashType.data-value',
      `"${truncate(DATA_VALUE.exec(msg)![0], 60)}": values in the data the call cannot take`,
    );
  if (INVALID_ARGUMENT.test(msg))
    return decide(
      'invalid argument',
      'crashType.argument',
      `"${truncate(INVALID_ARGUMENT.exec(msg)![0], 60)}": an argument the API does not accept`,
    );
  if (e === 'invalidargumenterror')
    return decide('invalid argument', 'crashType.tf-invalid-argument', `${f.ename}: TensorFlow rejected an argument`);
  if (e === 'valueerror') {
    if (VALUE_CONVERSION.test(msg))
      return decide(
        'value error',
        'crashType.value-conversion',
        `"${truncate(VALUE_CONVERSION.exec(msg)![0], 60)}": a value of the wrong kind`,
      );
    return decide('value error', 'crashType.value', `${f.ename}: ${truncate(f.message, 80)}`);
  }
  if (TYPE_OPERATION.test(msg))
    return decide(
      'type error',
      'crashType.type-operation',
      `"${truncate(TYPE_OPERATION.exec(msg)![0], 60)}": an operation on the wrong type`,
    );
  if (e === 'runtimeerror')
    return decide('runtime error', 'crashType.runtime', `${f.ename}: ${truncate(f.message, 80)}`);
  return decide(
    'runtime error',
    'crashType.other',
    `${f.ename} has no closer crash type; runtime error is the catch-all`,
  );
}

/**
 * A module a notebook binds by importing it: a conventional module alias
 * (`np`, `plt`) or a module the notebook itself imports. A missing class or
 * function imported from a module (`LabelEncoder`) is, in JunoBench's
 * labels, a variable not found.
 */
function isImportedName(name: string, f: CrashFacts): boolean {
  if (name in CONVENTIONAL_ALIASES) return true;
  const cells = [...(f.input.cellsBefore ?? []), f.input.cell ?? '', ...(f.input.cellsAfter ?? [])].join('\n');
  return cells !== '' && importedModules(cells).has(name);
}

function importWhy(name: string, f: CrashFacts): string {
  if (name in CONVENTIONAL_ALIASES) return `the usual alias of ${CONVENTIONAL_ALIASES[name]}`;
  return `a module imported elsewhere in the notebook${f.input.cellsAfter?.some((c) => importedModules(c).has(name)) ? ', in a later cell' : ''}`;
}

/**
 * Names bound to modules (`import x as y`, `from a import b` when b is a submodule is not told apart: only plain
 * imports count).
 */
function importedModules(source: string): Set<string> {
  try {
    return new Set(
      parseImports(source)
        .filter((i) => i.target === i.module || i.target === i.module.split('.')[0])
        .map((i) => i.alias),
    );
  } catch {
    return new Set();
  }
}
