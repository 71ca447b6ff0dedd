import { ownValue } from '../util/own.js';
/**
 * The notification template language: `{{ path.to.field | filter:arg | filter }}` and nothing else.
 * Paths read own properties of plain data; filters are a fixed list. No code runs, no prototype is read.
 * A missing value renders as an empty string; `\{{` writes a literal `{{`.
 */

import { formatDuration } from '../util/text/format-duration.js';
import { TEMPLATE_PATH as PATH, splitPipes, type TemplateFilter } from '../config/template-syntax.js';

export { checkTemplate, TEMPLATE_FILTERS } from '../config/template-syntax.js';

export type TemplateContext = Record<string, unknown>;

const FILTERS: Record<TemplateFilter, (value: unknown, arg: string | undefined) => unknown> = {
  default: (value, arg) => (isEmpty(value) ? (arg ?? '') : value),
  truncate: (value, arg) => {
    const text = toText(value);
    const max = Math.max(1, Number(arg ?? 200) || 200);
    return text.length > max ? `${text.slice(0, max - 1)}…` : text;
  },
  upper: (value) => toText(value).toUpperCase(),
  lower: (value) => toText(value).toLowerCase(),
  trim: (value) => toText(value).trim(),
  firstline: (value) => toText(value).trim().split('\n')[0] ?? '',
  basename: (value) => {
    const text = toText(value).replace(/\/+$/, '');
    return text.slice(text.lastIndexOf('/') + 1);
  },
  duration: (value) =>
    typeof value === 'number' && Number.isFinite(value) ? formatDuration(value) : toText(value),
  json: (value) => JSON.stringify(value ?? null),
  round: (value) => (typeof value === 'number' ? String(Math.round(value)) : toText(value)),
  short: (value) => toText(value).slice(0, 8),
};

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

function toText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function lookup(context: TemplateContext, path: string): unknown {
  let node: unknown = context;
  for (const key of path.split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    if (!Object.prototype.hasOwnProperty.call(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function parseArg(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) return text.slice(1, -1);
  return text;
}

/** Renders a template against a context. Never throws; unknown paths and filters render as empty. */
export function renderTemplate(template: string, context: TemplateContext): string {
  const rendered = template.replace(
    /(\\)?\{\{([^}]*)\}\}/g,
    (whole, escaped: string | undefined, expression: string) => {
      if (escaped) return whole.slice(1);
      const [head, ...filters] = splitPipes(expression);
      const path = head!.trim();
      let value: unknown = PATH.test(path) ? lookup(context, path) : undefined;
      for (const filter of filters) {
        const colon = filter.indexOf(':');
        const name = (colon === -1 ? filter : filter.slice(0, colon)).trim();
        const arg = colon === -1 ? undefined : parseArg(filter.slice(colon + 1));
        const fn = ownValue(FILTERS, name);
        value = fn ? fn(value, arg) : '';
      }
      return toText(value);
    },
  );
  return tidy(rendered);
}

/** Drops blank lines a missing field left at the start or end, and runs of blank lines inside. */
function tidy(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/\s+$/, ''))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
