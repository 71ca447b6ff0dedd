import { main } from '../cli/main.js';

export async function cliMain(argv: string[]): Promise<void> {
  const code = await main(argv);
  process.exitCode = code;
}
