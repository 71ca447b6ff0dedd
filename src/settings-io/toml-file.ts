import { parse, TomlError } from 'smol-toml';
import { CliError, EXIT } from '../errors.js';
import { readRegularFile, RefusedFileError } from '../util/private-fs.js';

/** Larger than any agent's config.toml: refused unread. */
export const MAX_TOML_BYTES = 4 * 1024 * 1024;
/** Deeper than any config.toml nests its arrays and inline tables. */
const MAX_TOML_DEPTH = 32;

/**
 * A TOML text's tables as plain objects (integers as numbers, dates as objects). Throws a CliError that
 * names the line and column of the first mistake; `__proto__` and `constructor` keys are dropped.
 */
export function parseTomlText(text: string, file: string): Record<string, unknown> {
  let data: Record<string, unknown>;
  try {
    data = parse(text, { maxDepth: MAX_TOML_DEPTH, unsafeKeyBehaviour: 'drop' }) as Record<string, unknown>;
  } catch (error) {
    const where = error instanceof TomlError ? ` at line ${error.line}, column ${error.column}` : '';
    const first = ((error as Error).message ?? String(error)).split('\n')[0]!.slice(0, 200);
    throw new CliError(
      `${file} is not valid TOML${where}: ${first}`,
      EXIT.FAILURE,
      `Fix the TOML by hand (the agent cannot read it either); hookd never edits ${file}.`,
    );
  }
  // Dotted keys and table headers nest without the parser's limit: checked here, without recursion.
  if (nestsDeeperThan(data, MAX_TOML_DEPTH))
    throw new CliError(
      `${file} nests tables more than ${MAX_TOML_DEPTH} levels deep; hookd does not read it`,
      EXIT.FAILURE,
      `No agent setting nests that deep: fix ${file} by hand.`,
    );
  return data;
}

/** True when objects and arrays inside `value` nest deeper than `max` (walked with a stack of its own). */
function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > max) return true;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * Reads and parses an agent's TOML config (Codex CLI's config.toml): undefined when absent. Bounded, a
 * regular file only (never waits on a FIFO); every problem is a CliError saying what is wrong.
 */
export function readTomlFile(file: string): { text: string; data: Record<string, unknown> } | undefined {
  let text: string;
  try {
    text = readRegularFile(file, MAX_TOML_BYTES).toString('utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (error instanceof RefusedFileError)
      throw new CliError(
        `cannot read ${file} (${error.message})`,
        EXIT.FAILURE,
        'An agent config.toml is a small text file; move this one away.',
      );
    throw new CliError(`cannot read ${file} (${code ?? (error as Error).message})`, EXIT.FAILURE);
  }
  return { text, data: parseTomlText(text, file) };
}
