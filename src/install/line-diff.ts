/** A small unified line diff (as `diff -u`), enough to show what an install would change. */

type Op = { kind: ' ' | '-' | '+'; line: string };

/** Marks a last line that has no newline, so "x" and "x\n" differ as diff says they do. */
const NO_NEWLINE = '\u0000no-newline';

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  else lines[lines.length - 1] += NO_NEWLINE;
  return lines;
}

/** Edit script by longest common subsequence, after trimming the common head and tail. */
function diffOps(a: readonly string[], b: readonly string[]): Op[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const ops: Op[] = a.slice(0, head).map((line) => ({ kind: ' ', line }));
  const n = midA.length;
  const m = midB.length;
  if (n * m > 25_000_000) {
    // Too big to align line by line: show the middle as replaced.
    ops.push(
      ...midA.map((line): Op => ({ kind: '-', line })),
      ...midB.map((line): Op => ({ kind: '+', line })),
    );
  } else {
    const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[i]![j] =
          midA[i] === midB[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && midA[i] === midB[j]) {
        ops.push({ kind: ' ', line: midA[i]! });
        i++;
        j++;
      } else if (i < n && (j >= m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) {
        ops.push({ kind: '-', line: midA[i++]! });
      } else {
        ops.push({ kind: '+', line: midB[j++]! });
      }
    }
  }
  ops.push(...a.slice(a.length - tail).map((line): Op => ({ kind: ' ', line })));
  return ops;
}

function range(start: number, count: number): string {
  if (count === 0) return `${start - 1 < 0 ? 0 : start - 1},0`;
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
  const a = splitLines(before);
  const b = splitLines(after);
  const ops = diffOps(a, b);
  const out = [`--- ${labels.before}`, `+++ ${labels.after}`];
  let index = 0;
  while (index < ops.length) {
    while (index < ops.length && ops[index]!.kind === ' ') index++;
    if (index >= ops.length) break;
    const start = Math.max(0, index - contextLines);
    let end = index;
    // extend the hunk while the next change is within 2 * context lines
    for (;;) {
      while (end < ops.length && ops[end]!.kind !== ' ') end++;
      let next = end;
      while (next < ops.length && ops[next]!.kind === ' ') next++;
      if (next < ops.length && next - end <= contextLines * 2) end = next;
      else break;
    }
    const stop = Math.min(ops.length, end + contextLines);
    let lineA = 1;
    let lineB = 1;
    for (let k = 0; k < start; k++) {
      if (ops[k]!.kind !== '+') lineA++;
      if (ops[k]!.kind !== '-') lineB++;
    }
    const hunk = ops.slice(start, stop);
    const countA = hunk.filter((op) => op.kind !== '+').length;
    const countB = hunk.filter((op) => op.kind !== '-').length;
    out.push(`@@ -${range(lineA, countA)} +${range(lineB, countB)} @@`);
    for (const op of hunk) {
      if (op.line.endsWith(NO_NEWLINE)) {
        out.push(op.kind + op.line.slice(0, -NO_NEWLINE.length), '\\ No newline at end of file');
      } else out.push(op.kind + op.line);
    }
    index = stop;
  }
  return out.join('\n') + '\n';
}
