import { basename, dirname, join, resolve } from 'node:path';
import { findOnPath } from '../util/find-on-path.js';
import { hookdLocation, realPath } from '../util/hookd-location.js';

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

/** File name of the fast client (bin/hookd-client.bash), run as `/bin/bash <abs>/bin/hookd-client.bash`. */
export const FAST_CLIENT_NAME = 'hookd-client.bash';
/** File name of the native fast client (dist/hookd-client, built from native/hookd-client.c), run by itself. */
export const NATIVE_CLIENT_NAME = 'hookd-client';

/** The two fast clients: the native binary when it was built and runs here, else the bash script. */
export const FAST_CLIENTS = ['native', 'bash'] as const;
export type FastClient = (typeof FAST_CLIENTS)[number];

function isBashProgram(word: string): boolean {
  return /^bash(\d+(\.\d+)*)?$/.test(basename(word));
}

/**
 * The prefix of the fast command: `HOOKD_NODE=<abs node>`, the node its fallback runs (not PATH's), then,
 * where the client is not beside hookd.cjs (a platform package's), `HOOKD_CJS=<abs hookd.cjs>`, the
 * program that fallback runs.
 */
const CLIENT_ASSIGNMENT = /^HOOKD_(NODE|CJS)=/;

/** Where the program words of a fast command start (after its leading HOOKD_NODE= and HOOKD_CJS= assignments). */
export function fastClientStart(words: readonly string[]): number {
  let at = 0;
  while (at < 2 && words[at] !== undefined && CLIENT_ASSIGNMENT.test(words[at]!)) at++;
  return at;
}

/**
 * bash's option in the fast command: posix mode at start-up runs no BASH_ENV file from the agent's
 * environment (the client turns posix mode off first thing), and leaves the environment as it is.
 */
export const FAST_BASH_OPTION = '--posix';

/**
 * Which fast client an invocation runs: `[bash [--posix]] <dir>/hookd-client.bash ...` (bash) or
 * `<dir>/hookd-client ...` (native, never after bash); undefined for anything else.
 */
export function fastClientOf(words: readonly string[]): FastClient | undefined {
  const at = fastClientStart(words);
  let start = words[at] !== undefined && isBashProgram(words[at]) ? at + 1 : at;
  if (start > at && words[start] === FAST_BASH_OPTION) start++;
  const client = words[start];
  if (client === undefined) return undefined;
  if (basename(client) === FAST_CLIENT_NAME) return 'bash';
  return start === at && basename(client) === NATIVE_CLIENT_NAME ? 'native' : undefined;
}

/** True for a fast client's invocation, bash or native (fastClientOf). */
export function isFastClientInvocation(words: readonly string[]): boolean {
  return fastClientOf(words) !== undefined;
}

function isHookdProgram(word: string): boolean {
  return HOOKD_PROGRAM_NAMES.includes(basename(word));
}

export function isNodeProgram(word: string): boolean {
  return /^node(\d+)?(\.exe)?$/.test(basename(word));
}

/** Where hookd's source, releases and install instructions are. */
export const HOOKD_REPOSITORY = 'https://github.com/hookd/hookd';

/**
 * What a project-scope install writes: the file is shared with teammates, so it names no path of this
 * machine. It runs the `hookd` found on PATH; where there is none it says so on stderr and exits 1
 * (the agent shows that, and goes on: exit 2 would block every tool call and prompt of a teammate who
 * has not installed hookd yet). It points to the repository, never to a package name: a name on a
 * registry that is not the project's would run a stranger's program on every event. See docs/install.md.
 */
export const PORTABLE_HOOKD_COMMAND = `command -v hookd >/dev/null 2>&1 || { echo 'hookd is not installed on this machine, so the hooks of this project did not run: see ${HOOKD_REPOSITORY}#install' >&2; exit 1; }; exec hookd hook`;

/** The portable form, whatever its message said (older versions wrote another), and what it execs. */
const PORTABLE_FORM = /^command -v hookd >\/dev\/null 2>&1 \|\| \{ echo '[^']*' >&2; exit 1; \}; exec (.*)$/s;

/**
 * The words that start hookd in a hook command: the command itself, or, in the portable project form,
 * what follows its `exec`. Undefined when the command cannot be split.
 */
export function hookdInvocation(command: string): string[] | undefined {
  const text = command.trim();
  const portable = PORTABLE_FORM.exec(text);
  return splitShellWords(portable ? portable[1]! : text);
}

/**
 * The recognition rule: a hook command is hookd's own when its first word is the hookd program
 * (a file named hookd, hookd.cjs, hookd.mjs or hookd.js, any directory), or node followed by it,
 * and the next word is `hook`; or when it runs a fast client (`bash <dir>/hookd-client.bash`, or
 * that script by itself, or the native `<dir>/hookd-client`); or when it is the portable project form around such an invocation.
 * Later words (options) are allowed.
 */
export function isHookdCommand(command: unknown): boolean {
  if (typeof command !== 'string') return false;
  const words = hookdInvocation(command);
  if (!words || words.length < 1) return false;
  if (isFastClientInvocation(words)) return true;
  const start = isNodeProgram(words[0]!) ? 1 : 0;
  return words[start] !== undefined && isHookdProgram(words[start]) && words[start + 1] === 'hook';
}

/**
 * The command written into the agent's settings. User scope: the absolute node that runs this install
 * and the absolute hookd program, so the agent's PATH does not matter (a GUI-launched agent or an nvm
 * shell may have no `node` on it, and `#!/usr/bin/env node` would fail with 127, skipping every guard).
 * Project scope: PORTABLE_HOOKD_COMMAND, which names no path of this machine.
 */
export function buildHookdCommand(
  hookdPath: string,
  options: { nodePath?: string; portable?: boolean; agent?: string } = {},
): string {
  // The command names its agent: hookd never guesses it from an environment an enclosing session passed on.
  const agent = options.agent ? ['--agent', options.agent].map(shellQuote).join(' ') : '';
  const program = options.portable
    ? PORTABLE_HOOKD_COMMAND
    : [options.nodePath ?? process.execPath, resolve(hookdPath), 'hook'].map(shellQuote).join(' ');
  return agent ? `${program} ${agent}` : program;
}

/**
 * The fast transport's command: bash and the shipped client, both absolute (the agents run `sh -c`, which
 * is dash on Debian and has no `/dev/tcp`), bash with `--posix` (FAST_BASH_OPTION), then `--agent X`. The client falls back to the Node path by
 * itself (docs/hook.md, "The fast client"); `HOOKD_NODE=<abs node>` in front makes that fallback run
 * the node of this install, as the node command does, so the agent's PATH does not matter.
 */
export function buildFastClientCommand(
  bashPath: string,
  clientPath: string,
  agent: string,
  nodePath: string = process.execPath,
): string {
  return withHookdNode(nodePath, [bashPath, FAST_BASH_OPTION, resolve(clientPath), '--agent', agent]);
}

/**
 * `HOOKD_NODE=<node> [HOOKD_CJS=<hookd.cjs>] word...`, every part shell-quoted (of an assignment, its
 * value): a client command whose fallback runs that node (and that hookd.cjs).
 */
function withHookdNode(nodePath: string, words: readonly string[], cjs?: string): string {
  const assignments = [`HOOKD_NODE=${shellQuote(nodePath)}`];
  if (cjs !== undefined) assignments.push(`HOOKD_CJS=${shellQuote(cjs)}`);
  return [...assignments, ...words.map(shellQuote)].join(' ');
}

/**
 * The native fast client's command: `HOOKD_NODE=<abs node> <abs>/dist/hookd-client --agent X`. No shell
 * of its own (the agent's `sh -c` execs it); its fallback runs HOOKD_NODE as the bash client's does. The
 * fallback runs the hookd.cjs beside the client; a client elsewhere (a platform package's) is told which
 * one with `HOOKD_CJS=<abs hookd.cjs>` after HOOKD_NODE.
 */
export function buildNativeClientCommand(
  clientPath: string,
  agent: string,
  nodePath: string = process.execPath,
  hookdPath?: string,
): string {
  const client = resolve(clientPath);
  const cjs = hookdPath === undefined ? undefined : resolve(hookdPath);
  const named = cjs !== undefined && cjs !== join(dirname(client), 'hookd.cjs');
  return withHookdNode(nodePath, [client, '--agent', agent], named ? cjs : undefined);
}

/**
 * A hookd command for one event: `<command> --event <Event>`. Every form install writes (node, the native
 * client, the portable project form) ends with hookd's own arguments, so the event goes last. When the
 * event's input cannot be read, hookd still knows which event it is (a guard marked "onError": "block"
 * fails closed).
 */
export function commandForEvent(command: string, event: string): string {
  return `${command} --event ${shellQuote(event)}`;
}

/**
 * The hookd program as it is being run: process.argv[1] with every symlink resolved (npm's bin link,
 * `npm link`), so that what is written beside it (dist/hookd-client, hooks/) is found.
 */
export function currentHookdPath(argv: readonly string[] = process.argv): string {
  const script = argv[1];
  if (!script) throw new Error('cannot tell where hookd is installed: process.argv[1] is empty');
  return argv === process.argv ? hookdLocation().program : realPath(script);
}

/**
 * The `hookd` that running `hookd` by name starts, when it is not the hookd at `hookdPath` (undefined
 * when it is, or when there is none on PATH): another install, an older version, or an unrelated
 * program of that name. Both are compared with every symlink resolved.
 */
export function otherHookdOnPath(
  hookdPath: string,
  env: Record<string, string | undefined> = process.env,
): { path: string; target: string } | undefined {
  const found = findOnPath('hookd', env.PATH);
  if (!found) return undefined;
  const target = realPath(found);
  return target === realPath(hookdPath) ? undefined : { path: found, target };
}
