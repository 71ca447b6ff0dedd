import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../../src/settings-io/line-diff.js';

// The diff `--dry-run` prints is a real unified diff: GNU patch applies it and gets the new text.

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hookd-diff-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const lines = (n: number, prefix = 'line') => Array.from({ length: n }, (_, i) => `${prefix} ${i}`);

const CASES: [string, string, string][] = [
  [
    'insert in the middle',
    lines(20).join('\n') + '\n',
    [...lines(10), 'new', ...lines(20).slice(10)].join('\n') + '\n',
  ],
  [
    'change far apart',
    lines(40).join('\n') + '\n',
    lines(40)
      .map((l, i) => (i % 13 === 0 ? `${l}!` : l))
      .join('\n') + '\n',
  ],
  [
    'delete the head and add a tail',
    lines(8).join('\n') + '\n',
    [...lines(8).slice(3), 'x', 'y'].join('\n') + '\n',
  ],
  ['from an empty file', '', '{\n  "hooks": {}\n}\n'],
  ['to an empty file', 'a\nb\n', ''],
  ['missing final newline before', '{\n  "a": 1\n}', '{\n  "a": 1,\n  "b": 2\n}\n'],
  ['missing final newline after', 'a\nb\n', 'a\nb\nc'],
  ['repeated lines', 'x\nx\nx\ny\nx\nx\n', 'x\ny\nx\nx\nx\nx\n'],
];

describe('unifiedDiff applied by GNU patch', () => {
  it.each(CASES)('%s', async (_name, before, after) => {
    const file = join(dir, 'settings.json');
    await writeFile(file, before);
    const diff = unifiedDiff(before, after, { before: 'a/settings.json', after: 'b/settings.json' });
    const patched = spawnSync('patch', ['--quiet', '--force', '-p1', '-d', dir], {
      input: diff,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(patched.status, `${patched.stdout}${patched.stderr}\n${diff}`).toBe(0);
    expect(await readFile(file, 'utf8')).toBe(after);
  });
});
