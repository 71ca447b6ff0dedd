import { statSync, type Stats } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { readRegularFile } from '../util/private-fs.js';

export interface GitInfo {
  /** The work tree's root (the folder holding `.git`). */
  root: string;
  /** The checked-out branch; undefined on a detached HEAD. */
  branch?: string;
}

const MAX_LEVELS = 40;

/*
 * Synchronous on purpose: a stat or a 4 KiB read is a few microseconds, while each async one is a
 * thread-pool round trip (0.1-0.5 ms on a busy machine), and this walk is on the path of every
 * notification of a new session (one stat per folder up to the repository's root). The daemon already
 * stats the same project folder synchronously (project-notify.ts).
 */
function statOf(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/**
 * A regular file of at most 4 KiB, judged on the open descriptor (openRegularFile): a repository's `.git`
 * or `HEAD` that is a FIFO, a device or swapped for one after a stat is never read, and opening a FIFO
 * never waits for a writer (the read is synchronous: it must not block the daemon).
 */
function readSmall(path: string): string | undefined {
  try {
    return readRegularFile(path, 4096).toString('utf8');
  } catch {
    return undefined;
  }
}

/**
 * The git root and branch of a folder, read cheaply from `.git/HEAD` (no git process). Handles work
 * trees and submodules (`.git` as a `gitdir:` file). Undefined outside a repository or on any error.
 */
export function readGitInfo(cwd: string): GitInfo | undefined {
  let dir = resolve(cwd);
  for (let level = 0; level < MAX_LEVELS; level++) {
    const dotGit = join(dir, '.git');
    const info = statOf(dotGit);
    let gitDir: string | undefined;
    if (info?.isDirectory()) gitDir = dotGit;
    else if (info) {
      const pointer = readSmall(dotGit)?.match(/^gitdir:\s*(.+)\s*$/m)?.[1];
      if (pointer) gitDir = isAbsolute(pointer) ? pointer : resolve(dir, pointer);
    }
    if (gitDir) {
      const head = readSmall(join(gitDir, 'HEAD'));
      const branch = head?.match(/^ref:\s*refs\/heads\/(.+?)\s*$/m)?.[1];
      return { root: dir, ...(branch ? { branch } : {}) };
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
  return undefined;
}
