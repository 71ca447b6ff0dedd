/**
 * The `hookd` executable. `hookd hook` is the agent's per-event command and must start fast, so it
 * loads only the hook bundle; every other command loads the full CLI.
 */
declare const require: (id: string) => unknown;
declare const __filename: string;

if (process.argv[2] === 'hook' && process.argv.length === 3) {
  void (require('./hook.cjs') as { hookMain(bin: string): Promise<void> }).hookMain(__filename);
} else {
  void (require('./cli.cjs') as { cliMain(argv: string[]): Promise<void> }).cliMain(process.argv.slice(2));
}
