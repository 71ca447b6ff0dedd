import { accessSync, constants } from 'node:fs';
import { basename, resolve } from 'node:path';

/** File names of the hookd program that the recognition rule accepts. */
const HOOKD_PROGRAM_NAMES = ['hookd', 'hookd.cjs', 'hookd.mjs', 'hookd.js'];

const SAFE_WORD = /^[A-Za-z0-9_/.,:+@%=-]+$/;

/** Quotes one word for `sh -c`: bare when it is plainly safe, else in single quotes. */
export function shellQuote(word: string): string {
  if (word !== '' && SAFE_WORD.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Splits a command line into words, honouring single quotes, double quotes and backslashes. */
export function splitShellWords(command: string): string[] | undefined {
  const words: string[] = [];
  let current = '';
  let inWord = false;
  let i = 0;
  while (i < command.length) {
    const ch = command[i]!;
    if (ch === "'") {
      const end = command.indexOf("'", i + 1);
      if (end < 0) return undefined;
      current += command.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (ch === '"') {
      let j = i + 1;
      for (; j < command.length && command[j] !== '"'; j++) {
        if (command[j] === '\\' && j + 1 < command.length) j++;
        current += command[j];
      }
      if (j >= command.length) return undefined;
      inWord = true;
      i = j + 1;
    } else if (ch === '\\' && i + 1 < command.length) {
      current += command[i + 1];
      inWord = true;
      i += 2;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
      i++;
    } else {
      current += ch;
      inWord = true;
      i++;
    }
  }
  if (inWord) words.push(current);
  return words;
}

function isHookdProgram(word: string): boolean {
  return HOOKD_PROGRAM_NAMES.includes(basename(word));
}

function isNodeProgram(word: string): boolean {
  return /^node(\d+)?(\.exe)?$/.test(basename(word));
}

/**
 * The recognition rule: a hook command is hookd's own when its first word is the hookd program
 * (a file named hookd, hookd.cjs, hookd.mjs or hookd.js, any directory), or node followed by it,
 * and the next word is `hook`. Later words (options) are allowed.
 */
export function isHookdCommand(command: unknown): boolean {
  if (typeof command !== 'string') return false;
  const words = splitShellWords(command.trim());
  if (!words || words.length < 2) return false;
  const start = isNodeProgram(words[0]!) ? 1 : 0;
  return words[start] !== undefined && isHookdProgram(words[start]) && words[start + 1] === 'hook';
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
 * The command written into the agent's settings: the absolute hookd program followed by `hook` and
 * `--agent <agent>`;
 * prefixed with the absolute node when the program file is not executable by itself.
 */
export function buildHookdCommand(
  hookdPath: string,
  options: { nodePath?: string; executable?: (file: string) => boolean; agent?: string } = {},
): string {
  const program = resolve(hookdPath);
  const executable = (options.executable ?? isExecutable)(program);
  const words = executable ? [program, 'hook'] : [options.nodePath ?? process.execPath, program, 'hook'];
  // The command names its agent: hookd never guesses it from an environment an enclosing session passed on.
  if (options.agent) words.push('--agent', options.agent);
  return words.map(shellQuote).join(' ');
}

/** The hookd program as it is being run: process.argv[1], made absolute. */
export function currentHookdPath(argv: readonly string[] = process.argv): string {
  const script = argv[1];
  if (!script) throw new Error('cannot tell where hookd is installed: process.argv[1] is empty');
  return resolve(script);
}
