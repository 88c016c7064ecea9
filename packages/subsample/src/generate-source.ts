import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { JunoError, createRng, hashTree, hashValue, openAtomic, type Rng } from '@junobench/core';

/**
 * A seeded generator of a large "full" data set, standing in for a Kaggle
 * download that cannot be redistributed or fetched here. Same name,
 * parameters and seed → the same bytes, so a subsampling spec that names it
 * can be redone by any build.
 */
export interface SourceGenerator {
  name: string;
  description: string;
  /** Write the data set into `dir` (an empty folder). */
  generate(dir: string, parameters: Record<string, unknown>, seed: string | number): Promise<void>;
}

const REGIONS: [string, number][] = [
  ['North', 0.3],
  ['South', 0.25],
  ['East', 0.2],
  ['West', 0.2495],
  ['Islands', 0.0005],
];
const CATEGORIES: Record<string, [string, number, number][]> = {
  Electronics: [
    ['Headphones', 19.99, 249.0],
    ['Phone charger', 9.99, 39.99],
    ['Smart speaker', 29.0, 199.0],
    ['Laptop sleeve', 14.5, 59.9],
  ],
  Grocery: [
    ['Coffee beans', 4.99, 18.5],
    ['Olive oil', 5.49, 22.0],
    ['Granola', 2.99, 8.99],
    ['Green tea', 1.99, 12.0],
  ],
  Clothing: [
    ['T-shirt', 7.99, 39.0],
    ['Jeans', 24.0, 120.0],
    ['Rain jacket', 39.0, 189.0],
    ['Socks (5 pack)', 5.0, 19.0],
  ],
  Home: [
    ['Desk lamp', 12.0, 89.0],
    ['Towel set', 15.0, 60.0],
    ['Storage box', 6.5, 29.0],
    ['Scented candle', 4.0, 24.0],
  ],
  Toys: [
    ['Puzzle 1000 pcs', 9.0, 35.0],
    ['Building blocks', 15.0, 120.0],
    ['Board game', 18.0, 65.0],
  ],
  Sports: [
    ['Yoga mat', 12.0, 70.0],
    ['Water bottle', 6.0, 35.0],
    ['Running cap', 8.0, 30.0],
  ],
  Beauty: [
    ['Shampoo', 3.5, 16.0],
    ['Face cream', 8.0, 75.0],
    ['Lip balm', 1.5, 7.0],
  ],
};
const SEGMENTS: [string, number][] = [
  ['Consumer', 0.55],
  ['Corporate', 0.3],
  ['Home Office', 0.15],
];
const PAYMENTS: [string, number][] = [
  ['Card', 0.62],
  ['Cash', 0.2],
  ['Mobile', 0.15],
  ['Voucher', 0.03],
];

function pick(rng: Rng, items: readonly [string, number][]): string {
  let x = rng.next();
  for (const [v, w] of items) {
    if (x < w) return v;
    x -= w;
  }
  return items[items.length - 1]![0];
}

/**
 * Retail transactions, Kaggle "store sales" style: one row per order line
 * (order id, date, region, store, category, product, unit price, units,
 * discount, customer segment, payment, returned). Realistic quirks a
 * notebook trips over: a very rare region ("Islands", 0.05 %), a few order
 * lines whose `units` was never recorded (missing, 0.003 %), discounts and
 * customer segments missing now and then.
 */
export const retailSalesGenerator: SourceGenerator = {
  name: 'retail-sales',
  description: 'Seeded retail transactions CSV (sales.csv) with a rare region and rare missing units',
  async generate(dir, parameters, seed) {
    const rows = typeof parameters.rows === 'number' ? parameters.rows : 300_000;
    const rng = createRng(`retail-sales\u0000${String(seed)}`);
    const out = await openAtomic(path.join(dir, 'sales.csv'));
    const cats = Object.keys(CATEGORIES);
    const start = Date.UTC(2022, 0, 1) / 86_400_000;
    const days = 730;
    try {
      let buf =
        'order_id,order_date,region,store_id,category,product,unit_price,units,discount,customer_segment,payment_method,returned\n';
      for (let i = 1; i <= rows; i++) {
        const region = pick(rng, REGIONS);
        const store = `S${String(1 + rng.int(120)).padStart(3, '0')}`;
        const category = cats[rng.int(cats.length)]!;
        const products = CATEGORIES[category]!;
        const [product, lo, hi] = products[rng.int(products.length)]!;
        const price = (lo + (hi - lo) * rng.next() ** 1.6).toFixed(2);
        const units = rng.next() < 0.00003 ? '' : String(1 + (Math.floor(-Math.log(1 - rng.next()) * 2.2) % 20));
        const discount = rng.next() < 0.08 ? '' : (Math.floor(rng.next() * 7) * 0.05).toFixed(2);
        const segment = rng.next() < 0.02 ? '' : pick(rng, SEGMENTS);
        const day = new Date((start + Math.floor(rng.next() * days)) * 86_400_000).toISOString().slice(0, 10);
        const returned = rng.next() < 0.04 ? 'True' : 'False';
        const pname = product.includes(',') ? `"${product}"` : product;
        buf += `ORD-${String(i).padStart(7, '0')},${day},${region},${store},${category},${pname},${price},${units},${discount},${segment},${pick(rng, PAYMENTS)},${returned}\n`;
        if (buf.length > 1 << 20) {
          await out.write(buf);
          buf = '';
        }
      }
      await out.write(buf);
      await out.commit();
    } catch (e) {
      await out.abort();
      throw e;
    }
  },
};

export const SOURCE_GENERATORS: ReadonlyMap<string, SourceGenerator> = new Map([
  [retailSalesGenerator.name, retailSalesGenerator],
]);

export interface GeneratedSource {
  dir: string;
  sha256: string;
  /** Whether it was already in the cache. */
  cached: boolean;
}

/**
 * The folder holding a generator's output for these parameters and seed,
 * generated on demand into `cacheDir` (`<cacheDir>/<name>-<hash>/`) and
 * reused afterwards. Generation is staged and renamed into place, so an
 * interrupted run never leaves a half-written source behind.
 */
export async function generateSource(
  cacheDir: string,
  name: string,
  parameters: Record<string, unknown> = {},
  seed: string | number = 0,
  generators: ReadonlyMap<string, SourceGenerator> = SOURCE_GENERATORS,
): Promise<GeneratedSource> {
  const gen = generators.get(name);
  if (!gen) {
    throw new JunoError('E_SUBSAMPLE', `no data generator named "${name}"`, {
      location: { field: 'source.generator' },
      hint: `known generators: ${[...generators.keys()].join(', ')}`,
    });
  }
  const key = hashValue({ name, parameters, seed: String(seed) }).slice(0, 16);
  const entry = path.join(cacheDir, `${name}-${key}`);
  const dir = path.join(entry, 'data');
  const ready = await stat(path.join(entry, 'COMPLETE')).then(
    () => true,
    () => false,
  );
  if (!ready) {
    const tmp = `${entry}.partial-${process.pid}`;
    await rm(tmp, { recursive: true, force: true });
    await mkdir(path.join(tmp, 'data'), { recursive: true });
    try {
      await gen.generate(path.join(tmp, 'data'), parameters, seed);
      await writeFile(path.join(tmp, 'COMPLETE'), `${name} ${JSON.stringify(parameters)} seed=${String(seed)}\n`);
      await rm(entry, { recursive: true, force: true });
      await rename(tmp, entry);
    } catch (e) {
      await rm(tmp, { recursive: true, force: true });
      throw e;
    }
  }
  return { dir, sha256: await hashTree(dir), cached: ready };
}
