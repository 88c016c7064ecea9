import type { RootCause } from '@junobench/core';
import { boundNames, type CrashFacts } from './crash-facts.js';
import { CONVENTIONAL_ALIASES, WELL_KNOWN_NAMES } from './library-knowledge.js';
import { decide, truncate, type RuleDecision } from './suggestion-rule.js';

/*
 * Root causes in JunoBench's vocabulary, from what a crash shows:
 * - NB specific: the notebook's state, not its code — a name defined by a cell
 *   that did not run (or ran out of order), a column already removed by a cell
 *   run twice;
 * - implementation error: the notebook's own code — a name never defined or
 *   imported, a None value, a typo;
 * - data confusion: the data is not what the code assumes (a missing column,
 *   strings where numbers are expected, NaN, a shape that does not fit);
 * - ML model confusion: the model's structure does not fit its inputs;
 * - library cause: the library changed under the notebook (a removed name or module);
 * - API misuse: a library called the wrong way (the default when a library is involved).
 */
const DATA_MESSAGES =
  /could not convert|invalid literal|contains NaN|NaN, infinity|non-finite|Unknown label type|continuous|previously unseen|not in index|not found in axis|None of \[|columns overlap|feature names|features?, but|inconsistent numbers of samples|dtype|Cannot cast|could not broadcast|not aligned|cannot reshape|Length of values|only one class|Unable to parse|out of bounds|Expected 2D array|must have same first dimension|Image data of dtype|Invalid shape/i;
const MODEL_MESSAGES =
  /incompatible with (?:the )?layer|Input \d+ of layer|logits and labels|Error\(s\) in loading state_dict|Layer count mismatch|to have \d+ channels|mat1 and mat2|size of tensor a|Given groups=|expected input batch_size|Exception encountered when calling layer|output of shape|Shapes .* are incompatible/i;
const REMOVED_API =
  /cannot import name|module '[\w.]+' has no attribute|has no attribute '(?:predict_classes|predict_proba_classes|fit_generator|iteritems|append|ix|as_matrix|get_values|sort|_\w+)'/i;
const ARGUMENT_MESSAGES =
  /unexpected keyword argument|missing \d+ required|positional arguments? but|got multiple values|invalid combination of arguments|Invalid parameter|is not a valid|not understood|supports only|Unknown (?:loss|optimizer|activation|metric|layer)|Could not interpret|must be one of|expected one of|not supported|argument must be|is not fitted yet|must compile/i;

export function suggestRootCause(f: CrashFacts): RuleDecision<RootCause> {
  const e = f.eclass;
  const lib = f.library;
  if (e === 'nameerror' || e === 'unboundlocalerror') return nameRootCause(f);
  if (lib.rule === 'library.environment') {
    return decide(
      'implementation error',
      'rootCause.environment',
      `${lib.evidence[0]}`,
      "JunoBench's root causes have no environment class (the benchmark leaves such crashes out); the nearest is the notebook's own setup, an implementation error",
    );
  }
  if (lib.rule === 'library.misspelt-attribute' || lib.rule === 'library.none-value')
    return decide('implementation error', 'rootCause.own-code', lib.evidence[0]!);
  if (lib.rule === 'library.moved-submodule' || lib.rule === 'library.cannot-import')
    return decide('library cause', 'rootCause.removed-api', lib.evidence[0]!);
  // The notebook's cells, when given, show the state itself; the traceback's lines only suggest it.
  const state = f.notebookState;
  if (state)
    return decide('NB specific', state.kind === 'rerun' ? 'rootCause.rerun' : 'rootCause.out-of-order', state.why);
  // The library estimate already saw the re-run in the traceback's own cell lines or the crashing statement.
  if (lib.rule === 'library.rerun') return decide('NB specific', 'rootCause.rerun', lib.evidence[0]!);
  if (e === 'keyerror')
    return decide(
      'data confusion',
      'rootCause.key',
      `the key ${truncate(f.message, 60)} the code expects is not in the data`,
    );
  if (DATA_MESSAGES.test(f.exceptionText)) {
    return decide(
      'data confusion',
      'rootCause.data',
      `"${truncate(DATA_MESSAGES.exec(f.exceptionText)![0], 60)}": the data is not what the code assumes`,
    );
  }
  if (
    lib.library !== 'None' &&
    REMOVED_API.test(f.exceptionText) &&
    e === 'attributeerror' &&
    /module '/.test(f.message)
  ) {
    return decide(
      'library cause',
      'rootCause.removed-attribute',
      `${truncate(f.message, 80)}: a name the library removed or renamed`,
    );
  }
  if (ARGUMENT_MESSAGES.test(f.exceptionText) || e === 'notfittederror') {
    return decide(
      'API misuse',
      'rootCause.arguments',
      `"${truncate(ARGUMENT_MESSAGES.exec(f.exceptionText)?.[0] ?? f.ename, 60)}": a library called the wrong way`,
    );
  }
  if (e === 'indexerror')
    return decide(
      'data confusion',
      'rootCause.index',
      `${f.ename}: the data is smaller or shaped differently than the code assumes`,
    );
  if (lib.library !== 'None' && MODEL_MESSAGES.test(f.exceptionText)) {
    return decide(
      'API misuse',
      'rootCause.model',
      `"${truncate(MODEL_MESSAGES.exec(f.exceptionText)![0], 60)}": the model is called with inputs its API does not take`,
    );
  }
  if (lib.library !== 'None')
    return decide(
      'API misuse',
      'rootCause.library',
      `the crash is ${lib.library}'s (${truncate(lib.evidence[0] ?? '', 80)}): most library crashes are the API used the wrong way`,
    );
  if (MODEL_MESSAGES.test(f.exceptionText)) {
    // Layer and tensor mismatches read like model confusion, yet annotators mostly find a misused API behind them.
    return decide(
      'API misuse',
      'rootCause.model',
      `"${truncate(MODEL_MESSAGES.exec(f.exceptionText)![0], 60)}": the model is called with inputs its API does not take`,
    );
  }
  return decide(
    'API misuse',
    'rootCause.no-library',
    'no ML library is involved, but a call was made the wrong way (the usual case when the crash is in an API)',
  );
}

function nameRootCause(f: CrashFacts): RuleDecision<RootCause> {
  const name = f.missingName;
  const before = (f.input.cellsBefore ?? []).join('\n');
  const after = (f.input.cellsAfter ?? []).join('\n');
  const known = f.input.cell !== undefined || f.input.cellsBefore !== undefined || f.input.cellsAfter !== undefined;
  if (!name || !known) {
    return decide(
      'NB specific',
      'rootCause.name',
      `${f.ename}: most undefined names in notebooks are defined by a cell that was not run, or was run out of order`,
    );
  }
  const definedAfter = boundNames(after).has(name);
  const definedBefore = boundNames(before).has(name) || definedEarlierInCell(name, f);
  if (definedAfter && !definedBefore)
    return decide(
      'NB specific',
      'rootCause.name-defined-later',
      `${name} is defined only in a later cell: that cell had to run first`,
    );
  if (definedBefore)
    return decide(
      'NB specific',
      'rootCause.name-defined-earlier',
      `${name} is defined in an earlier cell that did not run (or failed) in this session`,
    );
  const imported = name in CONVENTIONAL_ALIASES || name in WELL_KNOWN_NAMES;
  const near = [...boundNames(`${before}\n${after}\n${f.input.cell ?? ''}`)].find(
    (n) => n !== name && n.toLowerCase() === name.toLowerCase(),
  );
  if (near)
    return decide('implementation error', 'rootCause.name-typo', `${name} is never defined; ${near} is: a typo`);
  return decide(
    'implementation error',
    'rootCause.name-never-defined',
    imported
      ? `${name} is never imported anywhere in the notebook`
      : `${name} is never defined anywhere in the notebook`,
  );
}

function definedEarlierInCell(name: string, f: CrashFacts): boolean {
  const cell = f.input.cell;
  if (!cell || !f.statement) return false;
  const at = cell.indexOf(f.statement);
  return at > 0 && boundNames(cell.slice(0, at)).has(name);
}
