import { applyEdits, modify, parse, type JSONPath, type ParseError } from 'jsonc-parser';
import type { JsonTextStyle } from './json-text.js';

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** Pairs of equal elements (old index, new index) by longest common subsequence. */
function lcsPairs(a: unknown[], b: unknown[]): [number, number][] {
  const x = a.map((v) => JSON.stringify(v));
  const y = b.map((v) => JSON.stringify(v));
  const n = x.length;
  const m = y.length;
  const t = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      t[i]![j] = x[i] === y[j] ? t[i + 1]![j + 1]! + 1 : Math.max(t[i + 1]![j]!, t[i]![j + 1]!);
  const pairs: [number, number][] = [];
  for (let i = 0, j = 0; i < n && j < m;) {
    if (x[i] === y[j]) pairs.push([i++, j++]);
    else if (t[i + 1]![j]! >= t[i]![j + 1]!) i++;
    else j++;
  }
  return pairs;
}

/**
 * JSON with comments (JSONC): the settings files some users keep `//` notes in. Parsed and edited with
 * jsonc-parser, which keeps the comments. Plain JSON files go through json-patch.ts instead, which keeps
 * every byte of what did not change (jsonc-parser reformats touched arrays, cannot keep a compact
 * layout, and in 3.3.1 cuts into the previous value when it removes the last element of a compact
 * array: `[36.4,98.6]` minus the last gives `[36.46]`).
 */

/** The value of a JSONC text (comments allowed, nothing else beyond JSON), or undefined when it is not JSONC. */
export function parseJsoncText(text: string): unknown {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: false, disallowComments: false });
  return errors.length === 0 ? value : undefined;
}

/** The text of a JSONC document changed to hold `value`: only what changed is edited; comments stay. */
export function patchJsoncText(text: string, value: unknown, style: JsonTextStyle): string {
  const indent = style.indent || '  ';
  const formattingOptions = {
    insertSpaces: indent !== '\t',
    tabSize: indent === '\t' ? 1 : indent.length,
    eol: style.eol,
  };
  let out = text;
  const set = (path: JSONPath, v: unknown, insert = false) => {
    out = applyEdits(out, modify(out, path, v, { formattingOptions, isArrayInsertion: insert }));
  };
  const walk = (path: JSONPath, before: unknown, after: unknown): void => {
    if (same(before, after)) return;
    if (isPlainObject(before) && isPlainObject(after)) {
      for (const k of Object.keys(before)) if (!(k in after)) set([...path, k], undefined);
      for (const k of Object.keys(after)) {
        if (k in before) walk([...path, k], before[k], after[k]);
        else set([...path, k], after[k]);
      }
      return;
    }
    if (Array.isArray(before) && Array.isArray(after)) {
      const pairs = lcsPairs(before, after);
      const keptOld = new Set(pairs.map(([i]) => i));
      for (let i = before.length - 1; i >= 0; i--) if (!keptOld.has(i)) set([...path, i], undefined);
      const keptNew = new Set(pairs.map(([, j]) => j));
      for (let j = 0; j < after.length; j++) if (!keptNew.has(j)) set([...path, j], after[j], true);
      return;
    }
    set(path, after);
  };
  walk([], parseJsoncText(text), value);
  return out;
}
