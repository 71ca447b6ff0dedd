// Import-free: every layer may use it.

const ELLIPSIS = '…';

/** The longest start of `text` of at most `room` UTF-16 units that does not end inside a character. */
function cutAt(text: string, room: number): number {
  if (room <= 0) return 0;
  const last = text.charCodeAt(room - 1);
  return last >= 0xd800 && last <= 0xdbff ? room - 1 : room;
}

/**
 * `text` cut to at most `max` characters, ending with "…" when it was cut; never in the middle of a
 * character that takes two UTF-16 units (an emoji), which would leave text that is not valid Unicode.
 * Characters are counted as `String.length` counts them (UTF-16 units), so the limit also holds where a
 * service counts code points. `more(cut)`, when given, follows the ellipsis and says how much was cut
 * (" (120 more characters)"); the whole still fits in `max`, or, where even that cannot, the ellipsis
 * alone ends the text.
 */
export function clipText(text: string, max: number, more?: (cut: number) => string): string {
  if (text.length <= max) return text;
  if (max < 1) return '';
  if (more) {
    let keep = cutAt(text, max - 1);
    for (;;) {
      const tail = `${ELLIPSIS}${more(text.length - keep)}`;
      if (keep + tail.length <= max) return `${text.slice(0, keep)}${tail}`;
      if (tail.length >= max) break;
      // The tail moves the cut, and the cut the count in the tail: `keep` only shrinks, so this ends.
      keep = cutAt(text, max - tail.length);
    }
  }
  return `${text.slice(0, cutAt(text, max - 1))}${ELLIPSIS}`;
}
