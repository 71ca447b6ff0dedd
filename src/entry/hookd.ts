/**
 * The `hookd` executable. `hookd hook` (alone, or with `--agent droid|claude` and `--event <name>` as
 * `hookd install` writes it) is the agent's per-event command and must start fast, so it loads only the
 * hook bundle; `hookd daemon run` loads only the daemon; `-v`, `--version` and `hookd version` load
 * nothing; every other command loads the CLI (from V8's code cache, and each command's own code only
 * when that command runs).
 */
import { isAgentId } from '../agents/ids.js';
import { fstatSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { requireCached } from './code-cache.js';
import { HOOKD_VERSION } from '../util/version.js';

declare const require: (id: string) => unknown;
declare const __filename: string;
declare const __dirname: string;

/**
 * What a fast-path `hook` call names: `--agent` (droid or claude) and `--event`, each at most once, as
 * `--flag value` or `--flag=value`; undefined when the CLI must parse it (help, anything else). The
 * event's name is checked where it is used.
 */
function fastHookArgs(args: string[]): { agent?: string; event?: string } | undefined {
  if (args[0] !== 'hook') return undefined;
  const named: { agent?: string; event?: string } = {};
  for (let i = 1; i < args.length; i++) {
    const flag = /^--(agent|event)(?:=(.*))?$/.exec(args[i]!);
    if (!flag || named[flag[1] as 'agent' | 'event'] !== undefined) return undefined;
    const value = flag[2] ?? args[++i];
    if (value === undefined || value.startsWith('-')) return undefined;
    named[flag[1] as 'agent' | 'event'] = value;
  }
  if (named.agent !== undefined && !isAgentId(named.agent)) return undefined;
  return named;
}

/** Said at once to a person who runs `hookd hook` on a terminal, where it would wait for input in silence. */
const HOOK_ON_A_TERMINAL =
  'hookd hook reads one event (JSON) on stdin, as your agent sends it: paste one and press Ctrl-D, ' +
  'or try `hookd emit --help` (Ctrl-C quits)\n';

function isCharacterDevice(fd: number): boolean {
  try {
    return fstatSync(fd).isCharacterDevice();
  } catch {
    return false;
  }
}

/** A short text on stdout or stderr; a reader that went away (`| head`) is no failure. */
function say(fd: number, text: string): void {
  try {
    writeSync(fd, text);
  } catch {}
}

const args = process.argv.slice(2);
const hookArgs = fastHookArgs(args);
if (args.length === 1 && (args[0] === '-v' || args[0] === '--version' || args[0] === 'version')) {
  say(1, `${HOOKD_VERSION}\n`);
} else if (hookArgs !== undefined) {
  // An agent gives the hook a pipe or a socket: a terminal means a person. (node:tty is loaded only
  // for a character device: it costs milliseconds, and the agent's events never need it.)
  if (isCharacterDevice(0) && process.getBuiltinModule('node:tty').isatty(0)) say(2, HOOK_ON_A_TERMINAL);
  // Started once per agent event: from V8's code cache (code-cache.ts), not compiled each time; so are
  // the chunks it loads when an event needs them (the daemon client, running commands).
  const hook = requireCached<{
    hookMain(bin: string, agent?: string, event?: string): Promise<void>;
  }>(join(__dirname, 'hook.cjs'), process.env, { chunks: true });
  void hook.hookMain(__filename, hookArgs.agent, hookArgs.event);
} else if (process.argv[2] === 'daemon' && process.argv[3] === 'run' && process.argv.length === 4) {
  // The daemon-only bundle: a smaller idle footprint than the whole CLI.
  void (require('./daemon.cjs') as { daemonBinMain(): Promise<void> }).daemonBinMain();
} else {
  // `hookd demo` touches nothing outside its temp dir, not even the code cache in the state dir.
  if (args[0] === 'demo') process.env.HOOKD_CODE_CACHE = '0';
  void requireCached<{ cliMain(argv: string[]): Promise<void> }>(join(__dirname, 'cli.cjs')).cliMain(args);
}
