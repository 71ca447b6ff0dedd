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

/** An error meant for a person: printed once, at the edge, with what to do next. */
export class CliError extends Error {
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
