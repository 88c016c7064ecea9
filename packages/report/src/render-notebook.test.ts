import { describe, expect, it } from 'vitest';
import { planExecution, validateNotebook, type CellOutput } from '@junobench/notebook';
import { MAX_IMAGE_BASE64, MAX_OUTPUT_CHARS, renderNotebookDiff, renderOutput } from './render-notebook.js';
import { fixtureNotebook } from '../test-helpers/report-fixture.js';

const PNG_1PX = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

describe('renderOutput', () => {
  it.each<[string, CellOutput, RegExp]>([
    [
      'stream text, ANSI coloured and escaped',
      { output_type: 'stream', name: 'stdout', text: ['\u001b[31m<b>', 'x</b>\u001b[0m\n'] },
      /^<div class="output"><pre class="ansi"><span class="ansi-fg-1">&lt;b&gt;x&lt;\/b&gt;<\/span>\n<\/pre><\/div>$/,
    ],
    [
      'an image as a data: URI with its text as alt',
      {
        output_type: 'display_data',
        metadata: {},
        data: { 'image/png': PNG_1PX, 'text/plain': '<Figure size 640x480>' },
      },
      /<img alt="&lt;Figure size 640x480&gt;" src="data:image\/png;base64,iVBOR/,
    ],
    [
      'an image that is not base64 is named, not embedded',
      { output_type: 'display_data', metadata: {}, data: { 'image/png': '"><script>x</script>' } },
      /not valid base64, not shown/,
    ],
    [
      'a huge image is named, not embedded',
      { output_type: 'display_data', metadata: {}, data: { 'image/png': 'A'.repeat(MAX_IMAGE_BASE64 + 4) } },
      /\[image\/png output of 220 KB not embedded\]/,
    ],
    [
      'HTML and JavaScript outputs are never rendered',
      {
        output_type: 'display_data',
        metadata: {},
        data: { 'text/html': '<script>x()</script>', 'application/javascript': 'x()' },
      },
      /^<div class="output"><p class="muted">\[application\/javascript, text\/html output not shown\]<\/p><\/div>$/,
    ],
    [
      'text/plain beside HTML is what shows',
      {
        output_type: 'execute_result',
        execution_count: 3,
        metadata: {},
        data: { 'text/html': '<table>', 'text/plain': '   a\n0  1' },
      },
      /<pre class="ansi"> {3}a\n0 {2}1<\/pre>/,
    ],
    [
      'an error output: its traceback, coloured',
      { output_type: 'error', ename: 'KeyError', evalue: "'x'", traceback: ['\u001b[0;31mKeyError\u001b[0m: <x>'] },
      /<p class="tb-title">KeyError<\/p><pre class="ansi"><span class="ansi-fg-1">KeyError<\/span>: &lt;x&gt;<\/pre>/,
    ],
  ])('%s', (_name, output, expected) => {
    expect(renderOutput(output)).toMatch(expected);
  });

  it('cuts very long text outputs, saying how much is left out', () => {
    const html = renderOutput({ output_type: 'stream', name: 'stdout', text: 'x'.repeat(MAX_OUTPUT_CHARS + 123) });
    expect(html).toContain('… (123 more characters not shown)');
    expect(html.length).toBeLessThan(MAX_OUTPUT_CHARS + 200);
  });
});

describe('renderNotebookDiff', () => {
  // An out-of-order crash: the sources are the same, only the saved execution counts differ.
  const reproduced = validateNotebook(
    fixtureNotebook([
      { md: '# t' },
      { code: 'a = 1', count: 1 },
      { code: 'b = a', count: 3 },
      { code: 'a = 2', count: 2 },
      { code: 'print(b)', count: null },
    ]),
  );
  const fixed = validateNotebook(
    fixtureNotebook([
      { md: '# t' },
      { code: 'a = 1', count: 1 },
      { code: 'b = a', count: 2 },
      { code: 'a = 2', count: 3 },
      { code: 'print(b)', count: 4 },
    ]),
  );

  it('marks cells that run in another order, with their place in the run, though no source changed', () => {
    const left = { runOrder: planExecution(reproduced, 'execution-count'), showRunOrder: true };
    const right = { runOrder: planExecution(fixed, 'execution-count'), showRunOrder: true };
    expect(left.runOrder).toEqual([0, 2, 1]);
    const { html, summary } = renderNotebookDiff(reproduced, fixed, { left, right });
    expect(summary).toEqual({ same: 5, changed: 0, added: 0, removed: 0, reordered: 3 });
    expect(html.match(/<div class="nb-row reordered">/g)).toHaveLength(3);
    expect(html).toContain(
      '<span>code cell 1</span><span class="mono">[3]</span><span>runs 3rd</span><span class="badge badge-changed">run order changed</span>',
    );
    expect(html).toContain('<span>code cell 3</span><span>not replayed</span>');
    expect(html).toContain('<span>code cell 3</span><span class="mono">[4]</span><span>runs 4th</span>');
  });

  it('says nothing about order when both notebooks run top to bottom', () => {
    const left = { runOrder: planExecution(reproduced, 'file') };
    const right = { runOrder: planExecution(fixed, 'file') };
    const { html, summary } = renderNotebookDiff(reproduced, fixed, { left, right });
    expect(summary.reordered).toBe(0);
    expect(html).not.toContain('runs ');
    expect(html).not.toContain('reordered');
  });
});
