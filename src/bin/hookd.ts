/**
 * The `hookd` executable. `hookd hook` (alone, or with `--agent droid|claude` and `--event <name>` as
 * `hookd install` writes it) is the agent's per-event command and must start fast, so it loads only the
 * hook bundle; `hookd daemon run` loads only the daemon; every other command loads the full CLI.
 */
import { join } from 'node:path';
import { requireCached } from './code-cache.js';

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
  if (named.agent !== undefined && named.agent !== 'droid' && named.agent !== 'claude') return undefined;
  return named;
}

const hookArgs = fastHookArgs(process.argv.slice(2));
if (hookArgs !== undefined) {
  // Started once per agent event: from V8's code cache (code-cache.ts), not compiled each time.
  const hook = requireCached<{
    hookMain(bin: string, agent?: string, event?: string): Promise<void>;
  }>(join(__dirname, 'hook.cjs'));
  void hook.hookMain(__filename, hookArgs.agent, hookArgs.event);
} else if (process.argv[2] === 'daemon' && process.argv[3] === 'run' && process.argv.length === 4) {
  // The daemon-only bundle: a smaller idle footprint than the whole CLI.
  void (require('./daemon.cjs') as { daemonBinMain(): Promise<void> }).daemonBinMain();
} else {
  void (require('./cli.cjs') as { cliMain(argv: string[]): Promise<void> }).cliMain(process.argv.slice(2));
}
