// The stand-ins read back by Debian's nltk (tools/setup-python.sh), which has none of NLTK's data.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execaRunner } from '@junobench/runtime';
import { describe, expect, it } from 'vitest';
import { nltkStandInFor, PUNKT_PICKLE_CODE } from './nltk-stand-ins.js';

// NLTK's own message, colours and all (nltk 3.8).
const lookup = (resource: string, loaded: string) => ({
  ename: 'LookupError',
  evalue: `\n****\n  Resource \x1b[93m${resource}\x1b[0m not found.\n  >>> nltk.download('${resource}')\n\n  Attempted to load \x1b[93m${loaded}\x1b[0m\n\n  Searched in:\n    - '/root/nltk_data'\n****\n`,
});

describe('nltkStandInFor', () => {
  it('stop words and the Punkt tokenizer (pickled or as tables); nothing for other resources or errors', () => {
    expect(nltkStandInFor(lookup('stopwords', 'corpora/stopwords'))).toMatchObject({
      resource: 'stopwords',
      files: [{ path: 'corpora/stopwords/english' }],
    });
    expect(nltkStandInFor(lookup('punkt', 'tokenizers/punkt/PY3/english.pickle'))?.files).toEqual([
      { path: 'tokenizers/punkt/PY3/english.pickle', pickle: 'punkt' },
    ]);
    expect(nltkStandInFor(lookup('punkt_tab', 'tokenizers/punkt_tab/english/'))?.files).toHaveLength(4);
    expect(nltkStandInFor(lookup('wordnet', 'corpora/wordnet'))).toBeUndefined();
    expect(nltkStandInFor({ ename: 'KeyError', evalue: 'Attempted to load corpora/stopwords' })).toBeUndefined();
  });

  it('nltk reads them: stopwords.words, sent_tokenize and word_tokenize on the stand-ins alone', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'jb-nltk-'));
    try {
      for (const s of [
        nltkStandInFor(lookup('stopwords', 'corpora/stopwords'))!,
        nltkStandInFor(lookup('punkt', 'tokenizers/punkt/PY3/english.pickle'))!,
      ]) {
        for (const f of s.files) {
          const target = path.join(dir, ...f.path.split('/'));
          await mkdir(path.dirname(target), { recursive: true });
          if ('text' in f) await writeFile(target, f.text);
          else expect((await execaRunner('/usr/bin/python3', ['-c', PUNKT_PICKLE_CODE, target])).exitCode).toBe(0);
        }
      }
      const code = [
        'import sys, nltk',
        'nltk.data.path[:] = [sys.argv[1]]',
        'from nltk.corpus import stopwords',
        "print('the' in stopwords.words('english'), nltk.sent_tokenize('One two. Three four.'), nltk.word_tokenize('Hi there.'))",
      ].join('\n');
      const r = await execaRunner('/usr/bin/python3', ['-c', code, dir], { timeoutMs: 60_000 });
      expect(r.stderr).toBe('');
      expect(r.stdout.trim()).toBe("True ['One two.', 'Three four.'] ['Hi', 'there', '.']");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
