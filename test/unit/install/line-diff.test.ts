import { describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../../src/settings-io/line-diff.js';

const labels = { before: 'a/settings.json', after: 'b/settings.json' };

describe('unifiedDiff', () => {
  it('is empty for equal texts', () => {
    expect(unifiedDiff('x\n', 'x\n', labels)).toBe('');
  });

  it('shows an insertion with three lines of context, as diff -u does', () => {
    const before = ['{', '  "a": 1,', '  "b": 2,', '  "c": 3,', '  "d": 4', '}', ''].join('\n');
    const after = ['{', '  "a": 1,', '  "b": 2,', '  "c": 3,', '  "d": 4,', '  "hooks": {}', '}', ''].join(
      '\n',
    );
    expect(unifiedDiff(before, after, labels)).toBe(
      [
        '--- a/settings.json',
        '+++ b/settings.json',
        '@@ -2,5 +2,6 @@',
        '   "a": 1,',
        '   "b": 2,',
        '   "c": 3,',
        '-  "d": 4',
        '+  "d": 4,',
        '+  "hooks": {}',
        ' }',
        '',
      ].join('\n'),
    );
  });

  it('creates a file from nothing', () => {
    expect(unifiedDiff('', '{\n}\n', { before: '/dev/null', after: 'f' })).toBe(
      '--- /dev/null\n+++ f\n@@ -0,0 +1,2 @@\n+{\n+}\n',
    );
  });

  it('splits far-apart changes into separate hunks', () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i}`);
    const changed = [...lines];
    changed[2] = 'CHANGED 2';
    changed[25] = 'CHANGED 25';
    const diff = unifiedDiff(lines.join('\n') + '\n', changed.join('\n') + '\n', labels);
    expect(diff.match(/^@@/gm)).toHaveLength(2);
    expect(diff).toContain('@@ -1,6 +1,6 @@');
    expect(diff).toContain('@@ -23,7 +23,7 @@');
  });

  it('marks a missing final newline', () => {
    expect(unifiedDiff('{}', '{}\n', labels)).toBe(
      '--- a/settings.json\n+++ b/settings.json\n@@ -1 +1 @@\n-{}\n\\ No newline at end of file\n+{}\n',
    );
  });
});
