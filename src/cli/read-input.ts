import { readFileSync } from 'node:fs';
import { UsageError } from './errors.js';

/** Reads a file named on the command line; a missing or unreadable file is a usage error with its code. */
export function readInputFile(file: string, what = file): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(
      `cannot read ${what}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}
