// The report in a real browser: Debian's Chromium driven by playwright-core
// (tools/setup-browser.sh installs it; no browser download), over a report
// generated from the test fixture's curated/ and raw/, every page loaded
// from disk (file://) as a reader opens it.
import { accessSync, constants } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateReport } from './write-report.js';
import { HOSTILE, PANDAS_ADDED_LINE, writeReportFixture, type ReportFixture } from '../test-helpers/report-fixture.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** Screenshots for people to look at; gitignored. */
const ARTEFACTS = path.join(repoRoot, 'test-artifacts', 'report');
const LAUNCH_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

let tmp: string;
let fixture: ReportFixture;
let reportDir: string;
let browser: Browser;
let context: BrowserContext;
let pages: string[];

function findChromium(): string {
  const exe = process.env.JUNOBENCH_CHROMIUM ?? '/usr/bin/chromium';
  try {
    accessSync(exe, constants.X_OK);
  } catch {
    throw new Error(
      `Chromium not found at ${exe}: run \`sh tools/setup-browser.sh\` (installs Debian's chromium) and export the JUNOBENCH_CHROMIUM it prints`,
    );
  }
  return exe;
}

beforeAll(async () => {
  const executablePath = findChromium();
  tmp = await mkdtemp(path.join(os.tmpdir(), 'jb-report-browser-'));
  fixture = await writeReportFixture(tmp);
  reportDir = path.join(fixture.curated, 'report');
  const result = await generateReport({ from: fixture.curated, raw: fixture.raw, out: reportDir });
  expect(result.problems).toEqual([]);
  pages = [
    'index.html',
    'stats.html',
    'instances/NBspecific_1.html',
    'instances/pandas_1.html',
    'instances/tensorflow_1.html',
    'instances/torch_1.html',
  ];
  browser = await chromium.launch({ executablePath, args: LAUNCH_ARGS });
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await mkdir(ARTEFACTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

const urlOf = (rel: string) => pathToFileURL(path.join(reportDir, rel)).href;

/** Opens a page and records everything that went wrong while loading it. */
async function open(rel: string, ctx: BrowserContext = context): Promise<{ page: Page; errors: string[] }> {
  const page = await ctx.newPage();
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') errors.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
  await page.goto(urlOf(rel), { waitUntil: 'load' });
  return { page, errors };
}

async function visibleIds(page: Page): Promise<string[]> {
  return page.$$eval('#instances tbody tr', (rows) =>
    rows.filter((r) => !r.hasAttribute('hidden')).map((r) => r.getAttribute('data-id')!),
  );
}

describe('the report in Chromium', () => {
  it('loads every page from disk with no console errors, failed requests or CSP violations', async () => {
    for (const rel of pages) {
      const { page, errors } = await open(rel);
      expect(await page.title(), rel).not.toBe('');
      expect(errors, rel).toEqual([]);
      await page.close();
    }
  });

  it('resolves every link: pages and curated files exist, fragments name an element, outside links are plain http(s)', async () => {
    const idsOf = new Map<string, Set<string>>();
    const linksOf = new Map<string, { href: string; raw: string; rel: string }[]>();
    for (const rel of pages) {
      const { page } = await open(rel);
      idsOf.set(path.join(reportDir, rel), new Set(await page.$$eval('[id]', (els) => els.map((e) => e.id))));
      linksOf.set(
        rel,
        await page.$$eval('a[href]', (as) =>
          as.map((a) => ({
            href: (a as unknown as { href: string }).href,
            raw: a.getAttribute('href')!,
            rel: a.getAttribute('rel') ?? '',
          })),
        ),
      );
      await page.close();
    }
    const reached = new Set<string>();
    for (const [rel, links] of linksOf) {
      expect(links.length, rel).toBeGreaterThan(0);
      for (const link of links) {
        const url = new URL(link.href);
        const where = `${rel} → ${link.raw}`;
        if (url.protocol !== 'file:') {
          expect(['https:', 'http:'], where).toContain(url.protocol);
          expect(link.rel, where).toContain('noopener');
          continue;
        }
        const file = fileURLToPath(url);
        await expect(
          stat(file).then((s) => s.isFile()),
          where,
        ).resolves.toBe(true);
        if (url.hash) {
          // Every page a fragment points into is one of the pages loaded above.
          expect(idsOf.get(file)?.has(decodeURIComponent(url.hash.slice(1))), where).toBe(true);
        }
        reached.add(file);
      }
    }
    // Every page and the curated notebooks are reached by links.
    for (const rel of pages) expect([...reached]).toContain(path.join(reportDir, rel));
    expect([...reached]).toContain(path.join(fixture.curated, 'instances', 'pandas_1', 'reproduced.ipynb'));
  });

  it('filters the index: the table narrows and the counts follow', async () => {
    const { page } = await open('index.html');
    expect(await page.isVisible('#filters')).toBe(true);
    expect(await visibleIds(page)).toEqual(['NBspecific_1', 'pandas_1', 'tensorflow_1', 'torch_1']);
    expect(await page.textContent('#count-shown')).toBe('4');
    expect(await page.textContent('[data-count="status:verified"]')).toBe('2');

    await page.selectOption('#f-library', 'pandas');
    expect(await visibleIds(page)).toEqual(['pandas_1']);
    expect(await page.textContent('#count-shown')).toBe('1');
    expect(await page.textContent('[data-count="status:verified"]')).toBe('1');
    expect(await page.textContent('[data-count="status:skipped"]')).toBe('0');

    await page.click('#f-reset');
    // Polled from Node, not page.waitForFunction: that evals a string in the
    // page, which the report's CSP (no 'unsafe-eval') rightly refuses.
    await expect.poll(() => page.textContent('#count-shown')).toBe('4');
    await page.selectOption('#f-flags', 'flaky');
    expect(await visibleIds(page)).toEqual(['torch_1']);
    expect(await page.textContent('[data-count="flag:excluded"]')).toBe('1');
    expect(await page.textContent('[data-count="flag:synthetic-data"]')).toBe('0');

    await page.selectOption('#f-flags', '');
    await page.fill('#f-search', 'TENSOR');
    expect(await visibleIds(page)).toEqual(['tensorflow_1']);
    expect(await page.textContent('[data-count="flag:skipped-env"]')).toBe('1');
    await page.fill('#f-search', 'no such thing');
    expect(await visibleIds(page)).toEqual([]);
    expect(await page.textContent('#count-shown')).toBe('0');
    await page.close();
  });

  it('sorts the index by a column, both ways, and back by id', async () => {
    const { page } = await open('index.html');
    const order = () => page.$$eval('#instances tbody tr', (rows) => rows.map((r) => r.getAttribute('data-id')!));
    await page.click('th button:text-is("Reproduced")');
    expect(await order()).toEqual(['tensorflow_1', 'NBspecific_1', 'pandas_1', 'torch_1']);
    expect(await page.getAttribute('th:has(button:text-is("Reproduced"))', 'aria-sort')).toBe('ascending');
    await page.click('th button:text-is("Reproduced")');
    expect(await order()).toEqual(['torch_1', 'pandas_1', 'NBspecific_1', 'tensorflow_1']);
    expect(await page.getAttribute('th:has(button:text-is("Reproduced"))', 'aria-sort')).toBe('descending');
    await page.click('th button:text-is("Library")');
    expect(await order()).toEqual(['NBspecific_1', 'pandas_1', 'tensorflow_1', 'torch_1']);
    await page.click('th button:text-is("Instance")');
    expect(await order()).toEqual(['NBspecific_1', 'pandas_1', 'tensorflow_1', 'torch_1']);
    await page.click('th button:text-is("Instance")');
    expect(await order()).toEqual(['torch_1', 'tensorflow_1', 'pandas_1', 'NBspecific_1']);
    // Sorting keeps the filter.
    await page.selectOption('#f-status', 'verified');
    await page.click('th button:text-is("Fixed")');
    expect(await visibleIds(page)).toEqual(['NBspecific_1', 'pandas_1']);
    await page.close();
  });

  it("shows the known instance's changed cells as a diff and marks the crash cell with its traceback", async () => {
    const { page } = await open('instances/pandas_1.html');
    expect(await page.locator('.nb-row.changed').count()).toBe(1);
    expect(await page.locator('.nb-row.added').count()).toBe(1);
    expect(await page.locator('.nb-row.removed').count()).toBe(0);
    expect(await page.locator('.nb-row.same').count()).toBe(3);
    expect(await page.locator('.nb-row.changed ins').allTextContents()).toEqual([PANDAS_ADDED_LINE]);
    expect(await page.textContent('.nb-row.added .cell:not(.empty) pre')).toContain('units per region computed');

    const crash = page.locator('#crash-cell');
    expect(await crash.getAttribute('class')).toContain('crash');
    expect(await crash.textContent()).toContain('code cell 2');
    expect(await crash.locator('.traceback').textContent()).toContain(
      'IntCastingNaNError: Cannot convert non-finite values',
    );
    // The traceback saved in the original keeps its colours, as classes.
    expect(
      await page.locator('#original ~ pre .ansi-fg-1, section:has(#original) .ansi-fg-1').first().textContent(),
    ).toContain('----');

    // "Show only the cells that differ" hides the rest, without a script.
    await page.check('#only-changed');
    expect(await page.locator('.nb-row:visible').count()).toBe(2);
    expect(await page.locator('.nb-row.same:visible').count()).toBe(0);
    await page.close();
  });

  it('shows hostile notebook text as text and never runs it', async () => {
    for (const rel of ['instances/NBspecific_1.html', 'stats.html', 'instances/pandas_1.html']) {
      const { page, errors } = await open(rel);
      expect(await page.evaluate('window.__pwned'), rel).toBeUndefined();
      expect(errors, rel).toEqual([]);
      if (rel === 'instances/NBspecific_1.html') {
        const text = await page.textContent('main');
        for (const s of [
          '<script>window.__pwned = 1</script>',
          'html = "<script>window.__pwned = 2</script>"',
          '<script>window.__pwned = 3</script>',
          '</script><script>window.__pwned = 6</script>',
        ]) {
          expect(text).toContain(s);
        }
        expect(await page.locator('main script, main img[src="x"], main b:text-is("bold?")').count()).toBe(0);
        expect(await page.locator('script').count()).toBe(0);
      }
      if (rel === 'instances/pandas_1.html') {
        expect(await page.locator('a[href^="javascript:"]').count()).toBe(0);
        expect(await page.textContent('main')).toContain('javascript:window.__pwned=9');
      }
      await page.close();
    }
    expect(HOSTILE.svg).toContain('<script>');
  });

  it('has no serious or critical axe-core violations on the index and an instance page', async () => {
    const axeSource = createRequire(import.meta.url)('axe-core').source as string;
    for (const rel of ['index.html', 'instances/pandas_1.html', 'stats.html']) {
      const { page } = await open(rel);
      await page.evaluate(axeSource);
      const result = (await page.evaluate("axe.run(document, { resultTypes: ['violations'] })")) as {
        violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[];
      };
      const bad = result.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map(
          (v) =>
            `${v.impact} ${v.id}: ${v.help} at ${v.nodes
              .slice(0, 3)
              .map((n) => n.target.join(' '))
              .join(', ')}`,
        );
      expect(bad, rel).toEqual([]);
      await page.close();
    }
  });

  it('saves screenshots of the index and an instance page (test-artifacts/report/)', async () => {
    for (const [rel, name] of [
      ['index.html', 'index.png'],
      ['instances/pandas_1.html', 'instance-pandas_1.png'],
      ['stats.html', 'stats.png'],
    ] as const) {
      const { page } = await open(rel);
      const file = path.join(ARTEFACTS, name);
      await page.screenshot({ path: file, fullPage: true });
      expect((await readFile(file)).subarray(1, 4).toString()).toBe('PNG');
      await page.close();
    }
  });
});
