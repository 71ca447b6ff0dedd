import { Readable } from 'node:stream';
import { main } from '../../src/cli/main.js';
import { HOOKD_BIN } from './fixtures.js';
import { makeTempDir } from './temp.js';

export interface CliRan {
  code: number;
  stdout: string;
  stderr: string;
}

/** A stream that keeps what a command writes (not a terminal, so no colour). */
function collector(): { stream: { write(text: string): boolean; isTTY: false }; text: () => string } {
  const chunks: string[] = [];
  return {
    stream: {
      write: (text: string) => {
        chunks.push(typeof text === 'string' ? text : String(text));
        return true;
      },
      isTTY: false,
    },
    text: () => chunks.join(''),
  };
}

/**
 * Runs one `hookd` command in this process through the CLI's `main(argv, io)`, as the `hookd` program
 * does, with its own env (pass one from isolatedEnv), stdin and directory; returns its exit code and
 * output. Commands that start the daemon or other programs still start real processes: the test kills
 * them. The command sees itself as the built `hookd` (dist/hookd.cjs), so what it writes into settings
 * or starts is the real program. Without `cwd` it runs in an empty temp dir of its own (removed after),
 * never in the test process's directory: a project-scope command there would write into the repository.
 */
export async function runCli(
  args: string[],
  options: { env: Record<string, string>; stdin?: string | Buffer; cwd?: string },
): Promise<CliRan> {
  const out = collector();
  const err = collector();
  const stdin = Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]);
  const program = process.argv[1];
  const scratch = options.cwd === undefined ? makeTempDir('hkd-cwd-') : undefined;
  process.argv[1] = HOOKD_BIN;
  try {
    const code = await main(args, {
      env: { ...options.env },
      stdout: out.stream,
      stderr: err.stream,
      stdin,
      cwd: options.cwd ?? scratch!.dir,
    });
    return { code, stdout: out.text(), stderr: err.text() };
  } finally {
    process.argv[1] = program!;
    scratch?.cleanup();
  }
}
