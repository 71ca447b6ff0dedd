/** Exit codes of the `hookd` CLI, shared by every command (documented in the README). */
export const EXIT = {
  OK: 0,
  /** A check or operation failed (invalid config, doctor failure, delivery failed). */
  FAILURE: 1,
  /** Bad flags or arguments, or a request rejected before it was sent. */
  USAGE: 2,
  /** The API key is missing, invalid or not allowed (401, 403). */
  AUTH: 3,
  /** The server failed or could not be reached (5xx, network, timeout). */
  SERVER: 4,
  /** The thing asked for does not exist (404). */
  NOT_FOUND: 5,
} as const;

/**
 * Marks a CliError, whichever of hookd's bundles made it: the CLI's front (dist/cli.cjs) reports errors
 * thrown by the commands' bundle (dist/commands.cjs), which has its own copy of the class.
 */
const CLI_ERROR = Symbol.for('hookd.cli-error');

/** An error meant for a person: printed once, at the edge, with what to do next. */
export class CliError extends Error {
  readonly [CLI_ERROR] = true;
  constructor(
    message: string,
    readonly exitCode: number = EXIT.FAILURE,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export class UsageError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, EXIT.USAGE, hint);
    this.name = 'UsageError';
  }
}

/** A CliError from any of hookd's bundles (see CLI_ERROR). */
export function isCliError(error: unknown): error is CliError {
  return (
    typeof error === 'object' && error !== null && (error as { [CLI_ERROR]?: unknown })[CLI_ERROR] === true
  );
}
