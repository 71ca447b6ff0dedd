import { structuredPatch } from 'diff';

/** A unified line diff (as `diff -u`) of what an install would change, computed by the `diff` package. */

/** A hunk range as `diff -u` writes it: `start,count`, just `start` for one line, `start-1,0` for none. */
function range(start: number, count: number): string {
  if (count === 0) return `${Math.max(0, start - 1)},0`;
  return count === 1 ? `${start}` : `${start},${count}`;
}

/**
 * The unified diff of two texts, with `contextLines` of context around each change; empty when the
 * texts are equal. A missing final newline is marked as `diff` does.
 */
export function unifiedDiff(
  before: string,
  after: string,
  labels: { before: string; after: string },
  contextLines = 3,
): string {
  if (before === after) return '';
  const patch = structuredPatch(labels.before, labels.after, before, after, undefined, undefined, {
    context: contextLines,
  });
  const out = [`--- ${labels.before}`, `+++ ${labels.after}`];
  for (const hunk of patch.hunks) {
    out.push(`@@ -${range(hunk.oldStart, hunk.oldLines)} +${range(hunk.newStart, hunk.newLines)} @@`);
    out.push(...hunk.lines);
  }
  return out.join('\n') + '\n';
}
