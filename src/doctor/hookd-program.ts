import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute } from 'node:path';
import { findOnPath } from '../channels/desktop.js';
import { isHookdCommand, splitShellWords } from '../install/hookd-command.js';
import type { Env } from '../paths.js';

/** The program words of a hookd hook command: `[hookd]` or `[node, hookd.cjs]`. */
export function hookdProgramWords(command: string): string[] {
  if (!isHookdCommand(command)) return [];
  const words = splitShellWords(command.trim()) ?? [];
  const hookAt = words.indexOf('hook');
  return words.slice(0, hookAt);
}

function expandHome(word: string, env: Env): string {
  const home = env.HOME || homedir();
  if (word === '~' || word.startsWith('~/')) return home + word.slice(1);
  return word.replace(/^\$\{?HOME\}?(?=\/|$)/, home);
}

/**
 * Why the program of a hookd hook command cannot start, or undefined when every word resolves: an
 * absolute path that does not exist, a bare name not on PATH, or a relative path (it depends on the
 * session's working directory).
 */
export function missingProgram(command: string, env: Env): string | undefined {
  for (const raw of hookdProgramWords(command)) {
    const word = expandHome(raw, env);
    if (!word.includes('/')) {
      if (!findOnPath(word, env.PATH)) return `${raw} is not on PATH`;
    } else if (!isAbsolute(word)) {
      return `${raw} is a relative path (it depends on the session's working directory)`;
    } else if (!existsSync(word)) {
      return `${raw} does not exist`;
    }
  }
  return undefined;
}
