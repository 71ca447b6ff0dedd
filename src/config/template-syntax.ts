/**
 * The syntax of the notification template language, without rendering: the field-path pattern, the
 * filter names, the `|` splitter and `checkTemplate`. It lives in config/ because config validation
 * checks every template, and config sits below notify/ (docs/architecture.md); notify/template.ts
 * renders with it and implements exactly these filters (its filter table is typed by TemplateFilter).
 */

export const TEMPLATE_FILTERS = [
  'default',
  'truncate',
  'upper',
  'lower',
  'trim',
  'firstline',
  'basename',
  'duration',
  'json',
  'round',
  'short',
] as const;

export type TemplateFilter = (typeof TEMPLATE_FILTERS)[number];

export const TEMPLATE_PATH = /^[A-Za-z_][\w-]*(?:\.[\w-]+)*$/;

function isTemplateFilter(name: string): name is TemplateFilter {
  return (TEMPLATE_FILTERS as readonly string[]).includes(name);
}

/** A problem in a template, found before it is used (config validation and `hookd explain`). */
export function checkTemplate(template: string): string[] {
  const problems: string[] = [];
  for (const match of template.matchAll(/(?<!\\)\{\{([^}]*)\}\}/g)) {
    const [head, ...filters] = splitPipes(match[1]!);
    if (!TEMPLATE_PATH.test(head!.trim()))
      problems.push(`"${head!.trim()}" is not a field path (use e.g. session.title)`);
    for (const filter of filters) {
      const name = filter.split(':')[0]!.trim();
      if (!isTemplateFilter(name))
        problems.push(`unknown filter "${name}" (known: ${TEMPLATE_FILTERS.join(', ')})`);
    }
  }
  return problems;
}

/** Splits `head | filter:arg | filter` at the pipes; a quoted filter argument may contain "|". */
export function splitPipes(expression: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quote = false;
  for (const ch of expression) {
    if (ch === '"') quote = !quote;
    if (ch === '|' && !quote) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts;
}
