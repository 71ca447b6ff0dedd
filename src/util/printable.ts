/**
 * Text from outside (a path a repository chose, a symlink's target) made safe to print on a terminal:
 * control characters (C0, DEL, C1) are shown as `\u001b`-style escapes, never sent raw, and the text is
 * cut at `max` characters. Import-free: the hook path uses it.
 */
export function printable(text: string, max = 500): string {
  let out = '';
  for (const ch of text) {
    if (out.length >= max) return `${out}…`;
    const code = ch.codePointAt(0)!;
    out += code < 0x20 || (code >= 0x7f && code <= 0x9f) ? `\\u${code.toString(16).padStart(4, '0')}` : ch;
  }
  return out;
}
