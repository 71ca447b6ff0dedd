import { parse, type ParseError } from 'jsonc-parser';

/**
 * JSON with comments (JSONC): the settings files some users keep `//` notes in. Read here with
 * jsonc-parser, which refuses a trailing comma as the agents' own readers do; edited by json-patch.ts
 * like any JSON file, which keeps every comment and every byte of what did not change.
 */

/** The value of a JSONC text (comments allowed, nothing else beyond JSON), or undefined when it is not JSONC. */
export function parseJsoncText(text: string): unknown {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: false, disallowComments: false });
  return errors.length === 0 ? value : undefined;
}
