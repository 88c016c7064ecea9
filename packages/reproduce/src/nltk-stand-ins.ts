/**
 * NLTK's data (stop words, the Punkt sentence tokenizer) comes from `nltk.download(...)`, which needs the network the
 * sandbox does not have; offline it only prints an error and the LookupError comes where the data is used. Few
 * crashes depend on what the data holds: a stand-in in the draft's data/nltk_data lets the run go on to the crash.
 */

/** Where the stand-ins go, relative to the draft (the cell adds it to nltk.data.path). */
export const NLTK_DATA_DIR = 'data/nltk_data';

/** A file of a stand-in, relative to NLTK_DATA_DIR: text, or an untrained Punkt tokenizer pickled by the runtime. */
export type NltkStandInFile = { path: string; text: string } | { path: string; pickle: 'punkt' };

export interface NltkStandIn {
  /** The resource as NLTK names it (`stopwords`, `punkt`). */
  resource: string;
  files: NltkStandInFile[];
  /** What it holds, for the draft's record. */
  what: string;
}

// Common English function words, written for this stand-in (not NLTK's list).
const STOP_WORDS = [
  'a',
  'about',
  'after',
  'all',
  'an',
  'and',
  'any',
  'are',
  'as',
  'at',
  'be',
  'been',
  'but',
  'by',
  'can',
  'do',
  'does',
  'for',
  'from',
  'had',
  'has',
  'have',
  'he',
  'her',
  'him',
  'his',
  'how',
  'i',
  'if',
  'in',
  'into',
  'is',
  'it',
  'its',
  'me',
  'more',
  'my',
  'no',
  'not',
  'of',
  'on',
  'or',
  'our',
  'she',
  'so',
  'than',
  'that',
  'the',
  'their',
  'them',
  'then',
  'there',
  'these',
  'they',
  'this',
  'to',
  'was',
  'we',
  'were',
  'what',
  'when',
  'which',
  'who',
  'will',
  'with',
  'you',
  'your',
];

/**
 * Pure: the stand-in for the NLTK resource a run's LookupError says it could not load (`Attempted to load
 * corpora/stopwords`, `tokenizers/punkt/PY3/english.pickle`, `tokenizers/punkt_tab/english/`), if there is one.
 */
export function nltkStandInFor(observed: { ename: string; evalue: string }): NltkStandIn | undefined {
  if (observed.ename.split('.').pop() !== 'LookupError') return undefined;
  // NLTK colours the path (ANSI escapes) in its message.
  // eslint-disable-next-line no-control-regex
  const m = /Attempted to load (\S+)/.exec(observed.evalue.replace(/\x1b\[[0-9;]*m/g, ''));
  if (!m) return undefined;
  const wanted = m[1]!.replace(/\/+$/, '');
  if (/^corpora\/stopwords(?:\/english)?$/.test(wanted) || /^corpora\/stopwords\.zip/.test(wanted))
    return {
      resource: 'stopwords',
      files: [{ path: 'corpora/stopwords/english', text: `${STOP_WORDS.join('\n')}\n` }],
      what: `English stop words: ${STOP_WORDS.length} common function words, not NLTK's list`,
    };
  const pickled = /^tokenizers\/punkt\/(?:PY3\/)?(\w+)\.pickle$/.exec(wanted);
  if (pickled)
    return {
      resource: 'punkt',
      files: [{ path: wanted, pickle: 'punkt' }],
      what: `the Punkt sentence tokenizer for ${pickled[1]}, untrained (it knows no abbreviations)`,
    };
  const tab = /^tokenizers\/punkt_tab\/(\w+)$/.exec(wanted);
  if (tab)
    return {
      resource: 'punkt_tab',
      files: ['collocations.tab', 'sent_starters.txt', 'abbrev_types.txt', 'ortho_context.tab'].map((f) => ({
        path: `${wanted}/${f}`,
        text: '',
      })),
      what: `the Punkt sentence tokenizer's tables for ${tab[1]}, empty (it knows no abbreviations)`,
    };
  return undefined;
}

/** The line on top of the cell that first needs the data: NLTK looks in the draft's stand-ins first. */
export const NLTK_PATH_LINE = `import nltk as _jb_nltk; _jb_nltk.data.path.insert(0, '${NLTK_DATA_DIR}')  # junobench: stand-ins for NLTK's data`;

/** Python that writes an untrained Punkt tokenizer pickled to argv[1], as `nltk.data.load` reads it. */
export const PUNKT_PICKLE_CODE =
  'import pickle, sys\nfrom nltk.tokenize.punkt import PunktSentenceTokenizer\nwith open(sys.argv[1], "wb") as f:\n    pickle.dump(PunktSentenceTokenizer(), f)';
