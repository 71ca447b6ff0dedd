/**
 * Format-keeping edits of a JSON file: given the file's text and the new value, only the members and
 * elements that changed are rewritten; every other byte (layout, spacing, key order, comments) stays as it
 * was. Removing what was added gives back the original text.
 *
 * Files with comments (JSONC) are read through a copy of the same length with every comment blanked, so
 * positions found in the copy point into the text as written, and the pieces kept between values are cut
 * from the original, comments included.
 */
import { jsoncToJson } from '../config/jsonc.js';
import type { JsonTextStyle } from './json-text.js';

interface CstNode {
  start: number;
  end: number;
  value: unknown;
  /** Object members or array elements; absent for scalars. */
  items?: CstItem[];
  kind: 'object' | 'array' | 'scalar';
}

interface CstItem {
  /** Object member: key and where the key starts; undefined for array elements. */
  key?: string;
  start: number;
  node: CstNode;
}

/** Parses text already known to be valid JSON into nodes with their positions. */
function parseCst(text: string): CstNode {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r\uFEFF'.includes(text[i]!)) i++;
  };
  const stringEnd = (at: number) => {
    let j = at + 1;
    while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
    return j + 1;
  };
  const node = (): CstNode => {
    ws();
    const start = i;
    const ch = text[i];
    if (ch === '{' || ch === '[') {
      const isObject = ch === '{';
      const items: CstItem[] = [];
      i++;
      ws();
      while (text[i] !== (isObject ? '}' : ']')) {
        const itemStart = i;
        let key: string | undefined;
        if (isObject) {
          const keyEnd = stringEnd(i);
          key = JSON.parse(text.slice(i, keyEnd)) as string;
          i = keyEnd;
          ws();
          i++; // colon
        }
        const child = node();
        items.push({ ...(key !== undefined ? { key } : {}), start: itemStart, node: child });
        ws();
        if (text[i] === ',') i++;
        ws();
      }
      i++;
      return {
        kind: isObject ? 'object' : 'array',
        start,
        end: i,
        value: JSON.parse(text.slice(start, i)),
        items,
      };
    }
    if (ch === '"') i = stringEnd(i);
    else while (i < text.length && !' \t\n\r,]}/'.includes(text[i]!)) i++;
    return { kind: 'scalar', start, end: i, value: JSON.parse(text.slice(start, i)) };
  };
  return node();
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The whitespace that starts the line holding `at`. */
function lineIndent(text: string, at: number): string {
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}

function serialise(value: unknown, indent: string, style: JsonTextStyle, inline: boolean): string {
  if (inline || !style.indent) return JSON.stringify(value);
  return JSON.stringify(value, null, style.indent)
    .split('\n')
    .join(style.eol + indent);
}

/** One item of a rebuilt container: an original item (maybe patched) or a new one. */
type Planned = { original: number; text: string } | { original: undefined; text: string };

interface Layout {
  /** The container's items sit on one line. */
  inline: boolean;
  /** Indentation of a new item's first line (multi-line containers). */
  indent: string;
}

function layoutOf(text: string, node: CstNode, style: JsonTextStyle): Layout {
  const inner = text.slice(node.start + 1, node.end - 1);
  const inline = !inner.includes('\n') && (node.items!.length > 0 || !style.indent);
  const first = node.items![0];
  const indent = first ? lineIndent(text, first.start) : lineIndent(text, node.start) + style.indent;
  return { inline, indent };
}

/** Rebuilds a container from planned items, reusing the original separators and whitespace. */
function rebuild(
  text: string,
  node: CstNode,
  planned: Planned[],
  layout: Layout,
  style: JsonTextStyle,
): string {
  const items = node.items!;
  const open = text[node.start]!;
  const close = text[node.end - 1]!;
  if (planned.length === 0) return open + close;
  let leading: string;
  let trailing: string;
  if (items.length > 0) {
    leading = text.slice(node.start + 1, items[0]!.start);
    trailing = text.slice(items.at(-1)!.node.end, node.end - 1);
  } else if (!layout.inline) {
    leading = style.eol + layout.indent;
    trailing = style.eol + lineIndent(text, node.start);
  } else {
    leading = '';
    trailing = '';
  }
  const separatorAfter = (index: number) => {
    const next = items[index + 1];
    return next ? text.slice(items[index]!.node.end, next.start) : undefined;
  };
  const firstSeparator = items.length > 1 ? separatorAfter(0) : undefined;
  const representative =
    firstSeparator !== undefined && !firstSeparator.includes('/')
      ? firstSeparator
      : layout.inline
        ? `,${leading === ' ' ? ' ' : ''}`
        : `,${style.eol}${layout.indent}`;
  // A comment on the same line as the last item (`"a": 1 // note`) stays beside that item when items are
  // added after it, and comes back to the end when they are removed again.
  const lastIndex = items.length - 1;
  const lastComment = items.length > 0 ? sameLineComment(trailing) : '';
  let out = open + leading;
  planned.forEach((item, position) => {
    if (position > 0) {
      const previous = planned[position - 1]!;
      const kept = previous.original !== undefined ? separatorAfter(previous.original) : undefined;
      if (kept !== undefined) out += kept;
      else if (previous.original === lastIndex && lastComment)
        out += `,${lastComment}${representative.slice(1).replace(/^[ \t]+/, '')}`;
      else out += representative;
    }
    out += item.text;
  });
  const last = planned.at(-1)!;
  if (last.original === lastIndex) return out + trailing + close;
  if (lastComment && planned.some((item) => item.original === lastIndex))
    trailing = trailing.slice(lastComment.length);
  const lastSeparator = last.original !== undefined ? separatorAfter(last.original) : undefined;
  const comment = lastSeparator !== undefined ? sameLineComment(lastSeparator.replace(/^,/, '')) : '';
  return out + comment + trailing + close;
}

/** The comment (with the spaces before it) that starts `gap`, when one starts it on the same line. */
function sameLineComment(gap: string): string {
  return /^[ \t]*(?:\/\/[^\r\n]*|\/\*[^]*?\*\/)/.exec(gap)?.[0] ?? '';
}

function replaceWhole(text: string, node: CstNode, value: unknown, style: JsonTextStyle): string {
  return serialise(value, lineIndent(text, node.start), style, false);
}

/** The new text of one node, given its new value. */
function patchNode(text: string, node: CstNode, value: unknown, style: JsonTextStyle): string {
  if (same(node.value, value)) return text.slice(node.start, node.end);
  if (node.kind === 'object' && isPlainObject(value)) return patchObject(text, node, value, style);
  if (node.kind === 'array' && Array.isArray(value)) return patchArray(text, node, value, style);
  return replaceWhole(text, node, value, style);
}

function patchObject(
  text: string,
  node: CstNode,
  value: Record<string, unknown>,
  style: JsonTextStyle,
): string {
  const items = node.items!;
  const oldKeys = items.map((item) => item.key!);
  const newKeys = Object.keys(value);
  const kept = newKeys.filter((key) => oldKeys.includes(key));
  const added = newKeys.filter((key) => !oldKeys.includes(key));
  const keptInOldOrder = oldKeys.filter((key) => newKeys.includes(key));
  // Keep the layout only when keys are unique, kept keys keep their order and new keys come last.
  if (
    new Set(oldKeys).size !== oldKeys.length ||
    !same(kept, keptInOldOrder) ||
    !same(newKeys, [...kept, ...added])
  ) {
    return replaceWhole(text, node, value, style);
  }
  const layout = layoutOf(text, node, style);
  const { inline, indent } = layout;
  const first = items[0];
  const colon =
    first && inline ? text.slice(first.start, first.node.start).replace(/^"(?:[^"\\]|\\.)*"/, '') : ': ';
  const planned: Planned[] = [];
  items.forEach((item, index) => {
    if (!(item.key! in value)) return;
    const head = text.slice(item.start, item.node.start);
    planned.push({ original: index, text: head + patchNode(text, item.node, value[item.key!], style) });
  });
  for (const key of added) {
    planned.push({
      original: undefined,
      text: JSON.stringify(key) + colon + serialise(value[key], indent, style, inline),
    });
  }
  return rebuild(text, node, planned, layout, style);
}

/** Pairs old and new elements: equal ones by longest common subsequence, the rest in order within each gap. */
function alignArrays(oldValues: readonly unknown[], newValues: readonly unknown[]): (number | undefined)[] {
  const a = oldValues.map((v) => JSON.stringify(v));
  const b = newValues.map((v) => JSON.stringify(v));
  const n = a.length;
  const m = b.length;
  const lcs = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const source: (number | undefined)[] = new Array<number | undefined>(m).fill(undefined);
  const anchors: [number, number][] = [];
  for (let i = 0, j = 0; i < n && j < m;) {
    if (a[i] === b[j]) anchors.push([i++, j++]);
    else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) i++;
    else j++;
  }
  anchors.push([n, m]);
  let previousOld = 0;
  let previousNew = 0;
  for (const [oldIndex, newIndex] of anchors) {
    // within the gap, old elements that were changed in place pair up with new ones in order
    for (let k = 0; previousOld + k < oldIndex && previousNew + k < newIndex; k++) {
      source[previousNew + k] = previousOld + k;
    }
    if (newIndex < m) source[newIndex] = oldIndex;
    previousOld = oldIndex + 1;
    previousNew = newIndex + 1;
  }
  return source;
}

function patchArray(text: string, node: CstNode, value: readonly unknown[], style: JsonTextStyle): string {
  const items = node.items!;
  const layout = layoutOf(text, node, style);
  const { inline, indent } = layout;
  const source = alignArrays(
    items.map((item) => item.node.value),
    value,
  );
  const planned: Planned[] = value.map((element, index) => {
    const from = source[index];
    if (from === undefined) return { original: undefined, text: serialise(element, indent, style, inline) };
    return { original: from, text: patchNode(text, items[from]!.node, element, style) };
  });
  return rebuild(text, node, planned, layout, style);
}

/**
 * The text of a JSON document changed to hold `value`, keeping the original bytes of everything that
 * did not change, comments included. The text must be valid JSON or JSONC (check it first).
 */
export function patchJsonText(text: string, value: unknown, style: JsonTextStyle): string {
  const root = parseCst(text.includes('/') ? jsoncToJson(text) : text);
  return text.slice(0, root.start) + patchNode(text, root, value, style) + text.slice(root.end);
}
