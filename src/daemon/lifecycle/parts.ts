/** How a started part stops; nothing to stop: undefined. */
export type StopPart = () => void | Promise<void>;

/** Told when a part fails to stop; the other parts still stop. */
export type StopTrouble = (part: string, error: Error) => void;

/** A start asked for after close began: what started is stopped, and start() rejects with this. */
export class ClosedWhileStartingError extends Error {
  constructor(readonly part: string) {
    super(`the daemon was closed while it started (before ${part})`);
    this.name = 'ClosedWhileStartingError';
  }
}

/**
 * The started parts of a daemon, in the order they started. Each part starts through `start(name, fn)`:
 * it counts as started only once `fn` returned (a part that failed to start is not stopped), and what
 * `fn` returned is how it stops. `stop()` stops exactly the started parts, in reverse order, each once;
 * a part that fails to stop is reported and the others still stop. Once `stop()` began, no part starts.
 */
export class Parts {
  private readonly started: { name: string; stop: StopPart | undefined }[] = [];
  /** The part starting now: stop() waits for it, then stops it with the others. */
  private starting: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;

  constructor(private readonly onTrouble: StopTrouble) {}

  /** Starts one part; after stop() began, rejects with ClosedWhileStartingError and starts nothing. */
  async start(name: string, start: () => StopPart | void | Promise<StopPart | void>): Promise<void> {
    if (this.stopping) throw new ClosedWhileStartingError(name);
    const run = (async () => {
      const stop = await start();
      this.started.push({ name, stop: stop ?? undefined });
    })();
    this.starting = run;
    try {
      await run;
    } finally {
      this.starting = undefined;
    }
    // Closed while this part started: stop() stops it with the others, and nothing more starts.
    if (this.stopping) throw new ClosedWhileStartingError(name);
  }

  /** The names of the started parts, in the order they started (what stop() will stop, reversed). */
  names(): string[] {
    return this.started.map((part) => part.name);
  }

  /** Stops the started parts in reverse order; the same promise when called again. */
  stop(): Promise<void> {
    this.stopping ??= this.stopAll();
    return this.stopping;
  }

  private async stopAll(): Promise<void> {
    // A part still starting counts once it started (then it stops first); one that fails never does.
    await this.starting?.catch(() => {});
    for (let part = this.started.pop(); part; part = this.started.pop()) {
      try {
        await part.stop?.();
      } catch (error) {
        this.onTrouble(part.name, error as Error);
      }
    }
  }
}
