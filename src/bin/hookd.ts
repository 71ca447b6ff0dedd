/**
 * The `hookd` executable. `hookd hook` is the agent's per-event command and must start fast, so it
 * loads only the hook bundle; `hookd daemon run` loads only the daemon; every other command loads the
 * full CLI.
 */
declare const require: (id: string) => unknown;
declare const __filename: string;

if (process.argv[2] === 'hook' && process.argv.length === 3) {
  void (require('./hook.cjs') as { hookMain(bin: string): Promise<void> }).hookMain(__filename);
} else if (process.argv[2] === 'daemon' && process.argv[3] === 'run' && process.argv.length === 4) {
  // The daemon-only bundle: a smaller idle footprint than the whole CLI.
  void (require('./daemon.cjs') as { daemonBinMain(): Promise<void> }).daemonBinMain();
} else {
  void (require('./cli.cjs') as { cliMain(argv: string[]): Promise<void> }).cliMain(process.argv.slice(2));
}
