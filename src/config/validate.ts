import * as z from 'zod';
import { configSchema, projectConfigSchema, type HookdConfig } from './schemas/schema.js';
import { formatPath, type ConfigIssue } from './issues.js';
import { JsoncError, parseJsonc } from './jsonc.js';

export type ValidationResult = { ok: true; config: HookdConfig } | { ok: false; issues: ConfigIssue[] };

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}

/** The closest known name to a misspelt one, when it is close enough to be a typo. */
export function suggest(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = Infinity;
  for (const candidate of known) {
    const score = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (score < bestScore) {
      best = candidate;
      bestScore = score;
    }
  }
  return best !== undefined && bestScore <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let node: unknown = root;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[], input: unknown): string[] {
  // Walk the schema alongside the input to list the keys an object at `path` accepts.
  let node: z.ZodType | undefined = schema;
  for (const key of path) {
    node = unwrap(node);
    if (node instanceof z.ZodObject) node = (node.shape as Record<string, z.ZodType>)[String(key)];
    else if (node instanceof z.ZodArray) node = node.element as z.ZodType;
    else if (node instanceof z.ZodRecord) node = node.valueType as z.ZodType;
    else return [];
    if (!node) return [];
  }
  node = unwrap(node);
  void input;
  return node instanceof z.ZodObject ? Object.keys(node.shape) : [];
}

function unwrap(node: z.ZodType | undefined): z.ZodType | undefined {
  let current = node;
  for (let i = 0; i < 10 && current; i++) {
    if (
      current instanceof z.ZodOptional ||
      current instanceof z.ZodDefault ||
      current instanceof z.ZodNullable
    ) {
      current = current.unwrap() as z.ZodType;
    } else if (current instanceof z.ZodPipe) {
      current = current.in as z.ZodType;
    } else break;
  }
  return current;
}

function fixFor(issue: z.core.$ZodIssue, input: unknown): { message: string; fix?: string }[] {
  const params = (issue as { params?: { hint?: string } }).params;
  switch (issue.code) {
    case 'unrecognized_keys': {
      const known = knownKeysAt(configSchema, issue.path, input);
      return issue.keys.map((key) => {
        const close = suggest(key, known);
        return {
          message: `unknown key "${key}"`,
          fix: close
            ? `did you mean "${close}"?`
            : `remove it; keys allowed here: ${known.join(', ') || '(none)'}`,
        };
      });
    }
    case 'invalid_type':
      return [
        {
          message: issue.message,
          fix:
            issue.input === undefined
              ? `add the required value (${issue.expected})`
              : `use a ${issue.expected}`,
        },
      ];
    case 'invalid_value':
      return [
        {
          message: issue.message,
          fix: `use one of: ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`,
        },
      ];
    case 'too_small':
    case 'too_big':
      return [{ message: issue.message, fix: 'change the value to fit the range' }];
    default:
      return [{ message: issue.message, ...(params?.hint ? { fix: params.hint } : {}) }];
  }
}

/** Validates parsed JSON against the schema; every problem is reported, each with path, value and fix. */
/**
 * Where the input has a `__proto__` key (JSON.parse makes it an own property). zod drops such a key from
 * a record (an event name under `hooks`, a channel name, a variable name) without an issue, so the
 * config would be valid and yet lose that part: each one is reported instead. Iterative, so a deeply
 * nested file cannot exhaust the stack.
 */
function protoKeyPaths(input: unknown): PropertyKey[][] {
  const found: PropertyKey[][] = [];
  const stack: { value: unknown; path: PropertyKey[] }[] = [{ value: input, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    for (const [key, item] of Object.entries(value)) {
      const at = [...path, Array.isArray(value) ? Number(key) : key];
      if (key === '__proto__') found.push(at);
      stack.push({ value: item, path: at });
    }
  }
  return found;
}

export function validateConfigObject(
  input: unknown,
  file: string,
  level: 'user' | 'project' = 'user',
): ValidationResult {
  // A project file's rules may name the user's channels: their names are checked after the merge.
  const result = (level === 'project' ? projectConfigSchema : configSchema).safeParse(input);
  const protoPaths = protoKeyPaths(input);
  if (result.success && protoPaths.length === 0) return { ok: true, config: result.data };
  const issues: ConfigIssue[] = [];
  for (const issue of result.error?.issues ?? []) {
    for (const { message, fix } of fixFor(issue, input)) {
      const path =
        issue.code === 'unrecognized_keys'
          ? formatPath([...issue.path, message.slice(13, -1)])
          : formatPath(issue.path);
      const value = issue.code === 'unrecognized_keys' ? undefined : valueAt(input, issue.path);
      issues.push({
        file,
        path,
        message,
        ...(value !== undefined ? { value } : {}),
        ...(fix ? { fix } : {}),
      });
    }
  }
  for (const path of protoPaths) {
    const at = formatPath(path);
    // A strict object already reports it as an unknown key.
    if (issues.some((i) => i.path === at)) continue;
    issues.push({
      file,
      path: at,
      message: '"__proto__" is not a usable name: hookd would drop it (no event, channel or variable has it)',
      fix: 'remove it, or give it another name',
    });
  }
  return { ok: false, issues };
}

function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return `line ${line}, column ${column}`;
}

/**
 * Parses and validates a config file's text: JSON with comments and trailing commas (config/jsonc.ts).
 * Syntax errors are issues too, with a line and column.
 */
export function validateConfigText(
  text: string,
  file: string,
  level: 'user' | 'project' = 'user',
): ValidationResult {
  let input: unknown;
  try {
    input = parseJsonc(text);
  } catch (error) {
    const message = (error as Error).message;
    const offset = error instanceof JsoncError ? error.offset : Number(/position (\d+)/.exec(message)?.[1]);
    const where = Number.isInteger(offset) ? ` at ${lineAndColumn(text, offset)}` : '';
    // JSON.parse's own "(line 3 column 13)" counts without the comments' context: ours is the file's.
    const why = message.replace(/ \(line \d+ column \d+\)$/, '');
    return {
      ok: false,
      issues: [
        {
          file,
          path: '(root)',
          message: `not valid JSON${where}: ${why}`,
          fix: 'fix the syntax there (comments and trailing commas are fine); `hookd validate` checks it',
        },
      ],
    };
  }
  return validateConfigObject(input, file, level);
}

/** The JSON Schema of the config file, generated from the zod schema (the one source of truth). */
export function configJsonSchema(): unknown {
  return z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' });
}
