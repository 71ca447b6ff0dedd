/** Default length of a message excerpt in a notification. */
export const DEFAULT_EXCERPT_CHARS = 280;

/**
 * A short, single-paragraph version of a message for a notification: markdown fences and emphasis
 * markers dropped, whitespace collapsed, cut at a word boundary with an ellipsis.
 */
export function excerpt(text: string, maxChars: number = DEFAULT_EXCERPT_CHARS): string {
  const flat = text
    .replace(/```[^\n]*\n?/g, '')
    .replace(/^\s{0,3}#{1,6}\s+/gm, '')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/\s+/g, ' ')
    .trim();
  if (flat.length <= maxChars) return flat;
  const cut = flat.slice(0, Math.max(1, maxChars - 1));
  const space = cut.lastIndexOf(' ');
  return `${(space > maxChars * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, '')}…`;
}
