import { readFileSync } from 'node:fs';
import { describeReadError } from '../util/text/read-error.js';
import { UsageError } from '../errors.js';
import { cliPath } from '../terminal/cli-io.js';

/** Reads a file named on the command line (relative to the command's directory); a missing or unreadable file is a usage error saying why. */
export function readInputFile(file: string, what = file): string {
  try {
    return readFileSync(cliPath(file), 'utf8');
  } catch (error) {
    const { reason, fix } = describeReadError(error, what);
    throw new UsageError(`cannot read ${what}: ${reason}`, fix);
  }
}
