/**
 * Terminal output helpers: colour only on a TTY without NO_COLOR or TERM=dumb, tables for people, JSON for
 * scripts. Below every feature folder (docs/architecture.md): features format with it, cli/ prints.
 */

import { UNSAFE_IN_JSON, safeText } from '../util/text/safe-text.js';

export { formatAgo, formatDuration } from '../util/text/format-duration.js';
export { safeData, safeLines, safeText } from '../util/text/safe-text.js';

export interface Out {
  write(text: string): void;
  isTTY: boolean;
  color: boolean;
}

/** Colour only on a terminal, and not when NO_COLOR is set (to anything) or TERM=dumb. */
export function colorFor(
  isTTY: boolean | undefined,
  env: Record<string, string | undefined> = process.env,
): boolean {
  return Boolean(isTTY) && !env.NO_COLOR && env.TERM !== 'dumb';
}

export function stdoutOut(env: Record<string, string | undefined> = process.env): Out {
  const isTTY = Boolean(process.stdout.isTTY);
  return {
    write: (text) => void process.stdout.write(text),
    isTTY,
    color: colorFor(isTTY, env),
  };
}

const CODES = {
  red: 31,
  green: 32,
  yellow: 33,
  blue: 34,
  magenta: 35,
  cyan: 36,
  gray: 90,
  bold: 1,
  dim: 2,
} as const;
export type Color = keyof typeof CODES;

export function paint(out: Pick<Out, 'color'>, color: Color, text: string): string {
  return out.color ? `\u001b[${CODES[color]}m${text}\u001b[0m` : text;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

export function visibleLength(text: string): number {
  return text.replace(ANSI, '').length;
}

export interface Column<T> {
  header: string;
  /** The cell's text: shown through safeText (data never reaches the terminal raw); never paint here. */
  value: (row: T) => string;
  /** The cell's colour (with `out` given to formatTable and colour on). */
  color?: (row: T) => Color | undefined;
  align?: 'left' | 'right';
  /** Truncate longer cells to this many characters. */
  max?: number;
}

/**
 * A table for people: each cell's text made safe (a run of white space, line breaks included, becomes
 * one space; every other control character is shown escaped), cut to its column's `max`, then painted
 * with its column's colour.
 */
export function formatTable<T>(
  rows: readonly T[],
  columns: readonly Column<T>[],
  out: Pick<Out, 'color'> = { color: false },
): string {
  const cells = rows.map((row) =>
    columns.map((c) => {
      const text = safeText(c.value(row).replace(/\s+/g, ' '));
      const cut = c.max && text.length > c.max ? `${text.slice(0, c.max - 1)}…` : text;
      const color = c.color?.(row);
      return color ? paint(out, color, cut) : cut;
    }),
  );
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => visibleLength(r[i]!))));
  const line = (values: string[]) =>
    values
      .map((v, i) => {
        const pad = ' '.repeat(widths[i]! - visibleLength(v));
        return columns[i]!.align === 'right' ? pad + v : v + pad;
      })
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...cells.map(line)].join('\n') + '\n';
}

/** `\u009b` for a character JSON.stringify leaves raw but a terminal would act on (C1, DEL, bidi). */
function jsonEscape(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * JSON for scripts, safe on a terminal too: JSON.stringify escapes the C0 controls; DEL, the C1 controls
 * and the bidirectional controls are written as `\u` escapes as well (the same JSON value).
 */
export function formatJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2).replace(UNSAFE_IN_JSON, jsonEscape)}\n`;
}

/** The same on one line (JSON lines). */
export function formatJsonLine(value: unknown): string {
  return `${JSON.stringify(value).replace(UNSAFE_IN_JSON, jsonEscape)}\n`;
}
