import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';

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

/**
 * Where a text that is neither JSON nor JSONC first goes wrong, read as JSONC (so a `//` note before
 * the real mistake is not blamed): its offset, what was expected, and whether the mistake is only a
 * trailing comma. Undefined when the text is JSONC.
 */
export function jsoncError(
  text: string,
): { offset: number; code: string; trailingComma: boolean } | undefined {
  const errors: ParseError[] = [];
  parse(text, errors, { allowTrailingComma: false, disallowComments: false });
  const first = errors[0];
  if (!first) return undefined;
  const lenient: ParseError[] = [];
  parse(text, lenient, { allowTrailingComma: true, disallowComments: false });
  return {
    offset: first.offset,
    code: printParseErrorCode(first.error),
    trailingComma: lenient.length === 0,
  };
}
