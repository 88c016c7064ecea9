import { escapeHtml } from './escape-html.js';

/**
 * ANSI-coloured terminal text (IPython tracebacks) → HTML: escaped text in
 * <span>s whose classes name the colour and style. Classes rather than style
 * attributes because the pages' Content-Security-Policy forbids inline styles;
 * 256-colour and true-colour codes are mapped to the nearest of the 16 basic
 * colours for the same reason. Every other escape sequence (cursor moves,
 * titles, hyperlinks) and control character is dropped.
 */
export function convertAnsiToHtml(text: string): string {
  const state: AnsiState = { ...PLAIN };
  let out = '';
  let open = '';
  let last = 0;
  const flush = (chunk: string) => {
    if (chunk === '') return;
    const cls = classesOf(state);
    if (cls !== open) {
      if (open) out += '</span>';
      if (cls) out += `<span class="${cls}">`;
      open = cls;
    }
    out += escapeHtml(cleanControls(chunk));
  };
  for (const m of text.matchAll(ESCAPE_RE)) {
    flush(text.slice(last, m.index));
    last = m.index + m[0].length;
    if (m[1] !== undefined && m[2] === 'm') applySgr(state, m[1]);
  }
  flush(text.slice(last));
  if (open) out += '</span>';
  return out;
}

interface AnsiState {
  fg: number | null;
  bg: number | null;
  bold: boolean;
  dim: boolean;
  italic: boolean;
  underline: boolean;
  inverse: boolean;
}

const PLAIN: AnsiState = {
  fg: null,
  bg: null,
  bold: false,
  dim: false,
  italic: false,
  underline: false,
  inverse: false,
};

// CSI (parameters and final byte captured; a cut-off one is dropped too), OSC
// (ended by BEL or ST), character-set and other escapes with intermediate bytes,
// two-byte escapes, and a lone ESC.
const ESCAPE_RE =
  // eslint-disable-next-line no-control-regex
  /\u001b\[([0-9;:?<=>]*)[ -/]*([@-~])?|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[ -/]+[0-~]?|\u001b[@-Z\\-_]?/g;

// eslint-disable-next-line no-control-regex
const CONTROL_RE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

function cleanControls(s: string): string {
  return s.replace(/\r\n/g, '\n').replace(/\r/g, '\n').replace(CONTROL_RE, '');
}

function classesOf(s: AnsiState): string {
  let fg = s.fg;
  let bg = s.bg;
  if (s.inverse) [fg, bg] = [bg ?? 15, fg ?? 0];
  const cls: string[] = [];
  if (fg !== null) cls.push(`ansi-fg-${fg}`);
  if (bg !== null) cls.push(`ansi-bg-${bg}`);
  if (s.bold) cls.push('ansi-bold');
  if (s.dim) cls.push('ansi-dim');
  if (s.italic) cls.push('ansi-italic');
  if (s.underline) cls.push('ansi-underline');
  return cls.join(' ');
}

function applySgr(s: AnsiState, params: string): void {
  // `38:5:241` (colon form) is the same as `38;5;241`.
  const codes = params === '' ? [0] : params.split(/[;:]/).map((p) => (p === '' ? 0 : Number.parseInt(p, 10)));
  for (let i = 0; i < codes.length; i++) {
    const c = codes[i]!;
    if (Number.isNaN(c)) continue;
    if (c === 0) Object.assign(s, PLAIN);
    else if (c === 1) s.bold = true;
    else if (c === 2) s.dim = true;
    else if (c === 3) s.italic = true;
    else if (c === 4) s.underline = true;
    else if (c === 7) s.inverse = true;
    else if (c === 22) s.bold = s.dim = false;
    else if (c === 23) s.italic = false;
    else if (c === 24) s.underline = false;
    else if (c === 27) s.inverse = false;
    else if (c >= 30 && c <= 37) s.fg = c - 30;
    else if (c === 39) s.fg = null;
    else if (c >= 40 && c <= 47) s.bg = c - 40;
    else if (c === 49) s.bg = null;
    else if (c >= 90 && c <= 97) s.fg = c - 90 + 8;
    else if (c >= 100 && c <= 107) s.bg = c - 100 + 8;
    else if (c === 38 || c === 48) {
      const [colour, used] = readExtendedColour(codes, i + 1);
      i += used;
      if (colour !== undefined) {
        if (c === 38) s.fg = colour;
        else s.bg = colour;
      }
    }
  }
}

/** `5;n` or `2;r;g;b` after a 38/48: the nearest basic colour, and how many codes it took. */
function readExtendedColour(codes: readonly number[], at: number): [number | undefined, number] {
  const mode = codes[at];
  if (mode === 5) {
    const n = codes[at + 1];
    if (n === undefined || n < 0 || n > 255) return [undefined, 2];
    return [n < 16 ? n : nearestBasic(xterm256(n)), 2];
  }
  if (mode === 2) {
    const rgb = [codes[at + 1], codes[at + 2], codes[at + 3]];
    if (rgb.some((v) => v === undefined || v < 0 || v > 255)) return [undefined, 4];
    return [nearestBasic(rgb as [number, number, number]), 4];
  }
  return [undefined, 0];
}

// xterm's default values of the 16 basic colours: what the codes mean, used
// only to find the nearest one (the page's own palette is in the stylesheet).
const BASIC_RGB: readonly [number, number, number][] = [
  [0, 0, 0],
  [205, 0, 0],
  [0, 205, 0],
  [205, 205, 0],
  [0, 0, 238],
  [205, 0, 205],
  [0, 205, 205],
  [229, 229, 229],
  [127, 127, 127],
  [255, 0, 0],
  [0, 255, 0],
  [255, 255, 0],
  [92, 92, 255],
  [255, 0, 255],
  [0, 255, 255],
  [255, 255, 255],
];

function xterm256(n: number): [number, number, number] {
  if (n >= 232) {
    const v = 8 + (n - 232) * 10;
    return [v, v, v];
  }
  const levels = [0, 95, 135, 175, 215, 255];
  const i = n - 16;
  return [levels[Math.floor(i / 36)]!, levels[Math.floor(i / 6) % 6]!, levels[i % 6]!];
}

function nearestBasic([r, g, b]: [number, number, number]): number {
  let best = 0;
  let bestD = Infinity;
  BASIC_RGB.forEach(([br, bg, bb], i) => {
    const d = (r - br) ** 2 + (g - bg) ** 2 + (b - bb) ** 2;
    if (d < bestD) {
      bestD = d;
      best = i;
    }
  });
  return best;
}
