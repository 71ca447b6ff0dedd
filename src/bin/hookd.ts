/**
 * The `hookd` executable. `hookd hook` (alone, or with `--agent droid|claude` as `hookd install` writes
 * it) is the agent's per-event command and must start fast, so it loads only the hook bundle; `hookd daemon run` loads only the daemon; every other command loads the
 * full CLI.
 */
declare const require: (id: string) => unknown;
declare const __filename: string;

/** The agent a fast-path `hook` call names: '' for a bare `hook`, undefined when the CLI must parse it. */
function fastHookAgent(args: string[]): string | undefined {
  if (args[0] !== 'hook') return undefined;
  const rest = args.slice(1);
  if (rest.length === 0) return '';
  const value =
    rest.length === 2 && rest[0] === '--agent'
      ? rest[1]
      : rest.length === 1
        ? /^--agent=(.*)$/.exec(rest[0]!)?.[1]
        : undefined;
  return value === 'droid' || value === 'claude' ? value : undefined;
}

const hookAgent = fastHookAgent(process.argv.slice(2));
if (hookAgent !== undefined) {
  void (require('./hook.cjs') as { hookMain(bin: string, agent?: string): Promise<void> }).hookMain(
    __filename,
    hookAgent || undefined,
  );
} else if (process.argv[2] === 'daemon' && process.argv[3] === 'run' && process.argv.length === 4) {
  // The daemon-only bundle: a smaller idle footprint than the whole CLI.
  void (require('./daemon.cjs') as { daemonBinMain(): Promise<void> }).daemonBinMain();
} else {
  void (require('./cli.cjs') as { cliMain(argv: string[]): Promise<void> }).cliMain(process.argv.slice(2));
}
