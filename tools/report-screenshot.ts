// Screenshot of a report page in Debian's Chromium (playwright-core, no
// browser download), optimised for committing (docs/report-index.png):
//   npx tsx tools/report-screenshot.ts curated/report/index.html docs/report-index.png [--width 1280] [--height 800]
//   [--full]
// Needs JUNOBENCH_CHROMIUM or /usr/bin/chromium (sh tools/setup-browser.sh).
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import sharp from 'sharp';

const args = process.argv.slice(2);
const flag = (name: string, fallback: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const [page, out] = args.filter(
  (a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1]!.startsWith('--') && args[i - 1] !== '--full'),
);
if (!page || !out) {
  console.error(
    'usage: npx tsx tools/report-screenshot.ts <page.html> <out.png> [--width 1280] [--height 800] [--full]',
  );
  process.exit(2);
}
const browser = await chromium.launch({
  executablePath: process.env.JUNOBENCH_CHROMIUM ?? '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
  ],
});
try {
  const context = await browser.newContext({
    viewport: { width: flag('--width', 1280), height: flag('--height', 800) },
    deviceScaleFactor: 1,
  });
  const p = await context.newPage();
  await p.goto(pathToFileURL(path.resolve(page)).href);
  const png = await p.screenshot({ fullPage: args.includes('--full') });
  // A 64-colour palette keeps text crisp on the report's flat colours at a fraction of the size.
  await sharp(png).png({ palette: true, colours: 64, compressionLevel: 9, effort: 10 }).toFile(out);
  console.log(`${out}: ${(await stat(out)).size} bytes`);
} finally {
  await browser.close();
}
