/**
 * How many terminal columns a text takes: the `string-width` that yargs lays out its help with, in the
 * CLI bundle (scripts/build.mjs aliases the package to this file). The package segments every cell into
 * graphemes with Intl.Segmenter and Unicode-property regexes, which made `hookd --help` spend most of
 * its time measuring text that is hookd's own, almost all ASCII. Here: printable ASCII counts one column
 * a character at once; otherwise each code point counts 0 (controls, combining marks, zero-width and
 * variation characters), 2 (East Asian wide and fullwidth, emoji) or 1. ANSI colour codes count 0.
 */

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[\d;?]*[A-Za-z]/g;
const PRINTABLE_ASCII = /^[\u0020-\u007e]*$/;

/** [first, last] code points, sorted: zero columns. */
const ZERO: readonly (readonly [number, number])[] = [
  [0x0000, 0x001f],
  [0x007f, 0x009f],
  [0x00ad, 0x00ad],
  [0x0300, 0x036f],
  [0x0483, 0x0489],
  [0x0591, 0x05bd],
  [0x0610, 0x061a],
  [0x064b, 0x065f],
  [0x0e31, 0x0e31],
  [0x0e34, 0x0e3a],
  [0x1ab0, 0x1aff],
  [0x1dc0, 0x1dff],
  [0x200b, 0x200f],
  [0x2028, 0x202e],
  [0x2060, 0x206f],
  [0x20d0, 0x20ff],
  [0xfe00, 0xfe0f],
  [0xfe20, 0xfe2f],
  [0xfeff, 0xfeff],
  [0xe0000, 0xe0fff],
];

/** [first, last] code points, sorted: two columns. */
const WIDE: readonly (readonly [number, number])[] = [
  [0x1100, 0x115f],
  [0x231a, 0x231b],
  [0x2329, 0x232a],
  [0x23e9, 0x23ec],
  [0x23f0, 0x23f0],
  [0x23f3, 0x23f3],
  [0x25fd, 0x25fe],
  [0x2614, 0x2615],
  [0x2648, 0x2653],
  [0x26aa, 0x26ab],
  [0x26bd, 0x26be],
  [0x26c4, 0x26c5],
  [0x26d4, 0x26d4],
  [0x26ea, 0x26ea],
  [0x26f2, 0x26f5],
  [0x26fa, 0x26fd],
  [0x2705, 0x2705],
  [0x270a, 0x270b],
  [0x2728, 0x2728],
  [0x274c, 0x274c],
  [0x2753, 0x2755],
  [0x2757, 0x2757],
  [0x2795, 0x2797],
  [0x27b0, 0x27b0],
  [0x27bf, 0x27bf],
  [0x2b1b, 0x2b1c],
  [0x2b50, 0x2b50],
  [0x2b55, 0x2b55],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xa960, 0xa97f],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe10, 0xfe19],
  [0xfe30, 0xfe6f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x16fe0, 0x16fe4],
  [0x17000, 0x18cff],
  [0x1b000, 0x1b2ff],
  [0x1f004, 0x1f004],
  [0x1f0cf, 0x1f0cf],
  [0x1f18e, 0x1f18e],
  [0x1f191, 0x1f19a],
  [0x1f200, 0x1f251],
  [0x1f300, 0x1f64f],
  [0x1f680, 0x1f6ff],
  [0x1f7e0, 0x1f7eb],
  [0x1f90c, 0x1f9ff],
  [0x1fa70, 0x1faff],
  [0x20000, 0x2fffd],
  [0x30000, 0x3fffd],
];

function within(ranges: readonly (readonly [number, number])[], code: number): boolean {
  let low = 0;
  let high = ranges.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const [first, last] = ranges[middle]!;
    if (code < first) high = middle - 1;
    else if (code > last) low = middle + 1;
    else return true;
  }
  return false;
}

/** Columns of one code point: 0, 1 or 2. */
export function codePointWidth(code: number): number {
  if (within(ZERO, code)) return 0;
  return within(WIDE, code) ? 2 : 1;
}

export default function stringWidth(text: unknown, options: { countAnsiEscapeCodes?: boolean } = {}): number {
  if (typeof text !== 'string' || text.length === 0) return 0;
  const visible = options.countAnsiEscapeCodes ? text : text.replace(ANSI, '');
  if (PRINTABLE_ASCII.test(visible)) return visible.length;
  let width = 0;
  for (const char of visible) width += codePointWidth(char.codePointAt(0)!);
  return width;
}
