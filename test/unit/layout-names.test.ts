import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO_DIR = resolve(import.meta.dirname, '../..');
const folders = (dir: string) =>
  readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => entry.name);

describe('the names of the folders', () => {
  it('no folder of src/ has the name of a folder at the top of the repository (hook and hooks alike)', () => {
    const stem = (name: string) => name.replace(/s$/, '');
    const top = new Set(
      folders(REPO_DIR)
        .filter((name) => !['node_modules', 'dist', 'coverage'].includes(name))
        .map(stem),
    );
    expect(folders(join(REPO_DIR, 'src')).filter((name) => top.has(stem(name)))).toEqual([]);
  });

  it('util/ has no grab-bag file named for where its helpers are used', () => {
    const files = readdirSync(join(REPO_DIR, 'src', 'util'));
    expect(files.filter((name) => /^(fast|misc|helpers?|common|utils?)\.ts$/.test(name))).toEqual([]);
  });
});
