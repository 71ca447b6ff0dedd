import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readGitInfo } from '../../../src/enrich/git-branch.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hookd-git-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const mkfifo = (path: string) => execFileSync('mkfifo', [path]);

describe('readGitInfo', () => {
  it('finds the root and branch from a sub folder; a detached HEAD has no branch', () => {
    mkdirSync(join(dir, 'repo', '.git'), { recursive: true });
    mkdirSync(join(dir, 'repo', 'src', 'deep'), { recursive: true });
    writeFileSync(join(dir, 'repo', '.git', 'HEAD'), 'ref: refs/heads/feature/x\n');
    expect(readGitInfo(join(dir, 'repo', 'src', 'deep'))).toEqual({
      root: join(dir, 'repo'),
      branch: 'feature/x',
    });
    writeFileSync(join(dir, 'repo', '.git', 'HEAD'), '0123456789abcdef0123456789abcdef01234567\n');
    expect(readGitInfo(join(dir, 'repo'))).toEqual({ root: join(dir, 'repo') });
  });

  it('follows a `.git` file (work tree, submodule) to its git dir', () => {
    mkdirSync(join(dir, 'store', 'wt'), { recursive: true });
    writeFileSync(join(dir, 'store', 'wt', 'HEAD'), 'ref: refs/heads/main\n');
    mkdirSync(join(dir, 'tree'));
    writeFileSync(join(dir, 'tree', '.git'), 'gitdir: ../store/wt\n');
    expect(readGitInfo(join(dir, 'tree'))).toEqual({ root: join(dir, 'tree'), branch: 'main' });
  });

  it('never reads a FIFO a repository planted as its `.git` or `HEAD` (the read would block the daemon)', () => {
    mkdirSync(join(dir, 'a', '.git'), { recursive: true });
    mkfifo(join(dir, 'a', '.git', 'HEAD'));
    expect(readGitInfo(join(dir, 'a'))).toEqual({ root: join(dir, 'a') });
    mkdirSync(join(dir, 'b'));
    mkfifo(join(dir, 'b', '.git'));
    mkdirSync(join(dir, 'b', 'c'));
    const found = readGitInfo(join(dir, 'b', 'c'));
    expect(found?.root).not.toBe(join(dir, 'b'));
  });

  it('ignores a HEAD over 4 KiB', () => {
    mkdirSync(join(dir, 'big', '.git'), { recursive: true });
    writeFileSync(join(dir, 'big', '.git', 'HEAD'), `ref: refs/heads/main\n${'x'.repeat(5000)}`);
    expect(readGitInfo(join(dir, 'big'))).toEqual({ root: join(dir, 'big') });
  });
});
