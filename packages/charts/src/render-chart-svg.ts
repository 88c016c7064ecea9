import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

/**
 * Fonts decide how a chart looks and whether the PNG is legible: name one
 * that is on every Debian/Ubuntu machine (fonts-dejavu-core, a dependency of
 * fontconfig) with generic fallbacks. Vega lays text out by estimated widths
 * when no canvas package is present, which is deterministic.
 */
export const CHART_FONT = 'DejaVu Sans, Verdana, sans-serif';

/**
 * Render a Vega-Lite specification to SVG, headless: compile to Vega, run a
 * View without a renderer (no DOM, no canvas package) and serialise the scene
 * graph. Same spec → same SVG bytes.
 */
export async function renderChartSvg(spec: TopLevelSpec): Promise<string> {
  const view = new View(parse(compile(spec).spec), { renderer: 'none' });
  try {
    return normalizeSvgIds(await view.toSVG());
  } finally {
    view.finalize();
  }
}

/**
 * Vega numbers gradients and clip paths with process-wide counters
 * (`gradient_7`, `clip12`), so the second chart rendered in a process differs
 * from the same chart rendered first. Renumber them per document, in order of
 * first appearance, so the bytes depend on the chart alone.
 */
export function normalizeSvgIds(svg: string): string {
  const renamed = new Map<string, string>();
  const perPrefix = new Map<string, number>();
  // Only ids and references to them: text that happens to read "clip3" stays.
  return svg.replace(
    /(id="|url\(#|href="#)(gradient_|clip|pattern_)(\d+)(?=[")])/g,
    (_m, lead: string, prefix: string, num: string) => {
      const token = `${prefix}${num}`;
      let next = renamed.get(token);
      if (next === undefined) {
        const n = perPrefix.get(prefix) ?? 0;
        perPrefix.set(prefix, n + 1);
        next = `${prefix}${n}`;
        renamed.set(token, next);
      }
      return `${lead}${next}`;
    },
  );
}
