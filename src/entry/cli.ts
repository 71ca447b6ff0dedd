import { endQuietlyOnClosedPipe, main } from '../cli/main.js';

export async function cliMain(argv: string[]): Promise<void> {
  endQuietlyOnClosedPipe();
  const code = await main(argv);
  process.exitCode = code;
}
