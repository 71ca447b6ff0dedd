/** Where a progress line goes: a terminal stream (stderr). */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

/**
 * A one-line progress display that appears only on a TTY and only once the work has taken longer
 * than `delayMs`; `stop()` erases it.
 */
export function createProgressLine(stream: ProgressStream, delayMs = 1000) {
  let text: string | undefined;
  let visible = false;
  let stopped = false;
  const draw = () => {
    if (stopped || text === undefined) return;
    stream.write(`\r\u001b[K${text}`);
    visible = true;
  };
  const timer = stream.isTTY ? setTimeout(draw, delayMs) : undefined;
  return {
    update(next: string): void {
      text = next;
      if (visible) draw();
    },
    stop(): void {
      stopped = true;
      clearTimeout(timer);
      if (visible) stream.write('\r\u001b[K');
    },
  };
}
