import { readFile, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';

export interface GitInfo {
  /** The work tree's root (the folder holding `.git`). */
  root: string;
  /** The checked-out branch; undefined on a detached HEAD. */
  branch?: string;
}

const MAX_LEVELS = 40;

async function readSmall(path: string): Promise<string | undefined> {
  try {
    const info = await stat(path);
    if (!info.isFile() || info.size > 4096) return undefined;
    return await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The git root and branch of a folder, read cheaply from `.git/HEAD` (no git process). Handles work
 * trees and submodules (`.git` as a `gitdir:` file). Undefined outside a repository or on any error.
 */
export async function readGitInfo(cwd: string): Promise<GitInfo | undefined> {
  let dir = resolve(cwd);
  for (let level = 0; level < MAX_LEVELS; level++) {
    const dotGit = join(dir, '.git');
    let gitDir: string | undefined;
    if (await isDirectory(dotGit)) gitDir = dotGit;
    else {
      const pointer = (await readSmall(dotGit))?.match(/^gitdir:\s*(.+)\s*$/m)?.[1];
      if (pointer) gitDir = isAbsolute(pointer) ? pointer : resolve(dir, pointer);
    }
    if (gitDir) {
      const head = await readSmall(join(gitDir, 'HEAD'));
      const branch = head?.match(/^ref:\s*refs\/heads\/(.+?)\s*$/m)?.[1];
      return { root: dir, ...(branch ? { branch } : {}) };
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
  return undefined;
}
