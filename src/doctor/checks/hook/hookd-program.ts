import { accessSync, closeSync, constants, existsSync, openSync, readSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute } from 'node:path';
import { findOnPath } from '../../../channels/desktop.js';
import {
  fastClientStart,
  hookdInvocation,
  isFastClientInvocation,
  isHookdCommand,
  isNodeProgram,
} from '../../../install/hookd-command.js';
import type { Env } from '../../../paths.js';

/**
 * The program words of a hookd hook command: `[hookd]` or `[node, hookd.cjs]`; for the fast client
 * `[bash, hookd-client.bash]` or the native `[hookd-client]`, plus the node of its `HOOKD_NODE=` prefix
 * (its fallback).
 */
export function hookdProgramWords(command: string): string[] {
  if (!isHookdCommand(command)) return [];
  const words = hookdInvocation(command) ?? [];
  if (isFastClientInvocation(words)) {
    const at = fastClientStart(words);
    const node = at > 0 ? [words[0]!.slice(words[0]!.indexOf('=') + 1)] : [];
    return [
      ...words
        .slice(at, words.indexOf('--agent') > at ? words.indexOf('--agent') : undefined)
        .filter((w) => !w.startsWith('-')),
      ...node,
    ];
  }
  const hookAt = words.indexOf('hook');
  return words.slice(0, hookAt);
}

function expandHome(word: string, env: Env): string {
  const home = env.HOME || homedir();
  if (word === '~' || word.startsWith('~/')) return home + word.slice(1);
  return word.replace(/^\$\{?HOME\}?(?=\/|$)/, home);
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Why the program of a hookd hook command cannot start, or undefined when every word resolves: an
 * absolute path that does not exist (or, for the word the shell runs, is not executable), a bare name
 * not on PATH, or a relative path (it depends on the session's working directory). The node an install
 * wrote is named as such: an nvm version removed or a Node upgraded leaves it dangling.
 */
export function missingProgram(command: string, env: Env): string | undefined {
  const words = hookdProgramWords(command);
  for (const [i, raw] of words.entries()) {
    const word = expandHome(raw, env);
    const what = isNodeProgram(word) ? `the node it runs with, ${raw},` : raw;
    if (!word.includes('/')) {
      if (!findOnPath(word, env.PATH)) return `${raw} is not on PATH`;
    } else if (!isAbsolute(word)) {
      return `${raw} is a relative path (it depends on the session's working directory)`;
    } else if (!existsSync(word)) {
      return `${what} does not exist`;
    } else if (i === 0 && !isExecutable(word)) {
      return `${what} is not executable`;
    }
  }
  return undefined;
}

/**
 * True for a command that runs a hookd file by path without naming node, when that file starts with
 * `#!/usr/bin/env node`: it starts only where the agent's PATH has node on it.
 */
export function needsNodeOnPath(command: string): boolean {
  const first = hookdProgramWords(command)[0];
  if (first === undefined || !isAbsolute(first) || isNodeProgram(first)) return false;
  try {
    const head = Buffer.alloc(64);
    const fd = openSync(first, 'r');
    const read = readSync(fd, head, 0, head.length, 0);
    closeSync(fd);
    return /^#!\s*\/usr\/bin\/env\s+node\b/.test(head.subarray(0, read).toString('latin1'));
  } catch {
    return false;
  }
}
