import type { Readable } from 'node:stream';

export type StdinResult =
  | { ok: true; bytes: Buffer }
  | { ok: false; reason: 'too-big' | 'timeout' | 'error'; bytes: Buffer; detail: string };

/**
 * Reads the whole of stdin once, at most `maxBytes` (the rest is drained and dropped) and at most
 * `timeoutMs` (an agent that never closes stdin cannot hold hookd). The bytes read so far are always
 * returned, so a rejected input can still be kept for inspection.
 */
export function readStdin(
  stream: Readable,
  options: { maxBytes: number; timeoutMs: number },
): Promise<StdinResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let overflow = false;
    let settled = false;
    const finish = (result: StdinResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stream.removeListener('data', onData);
      stream.removeListener('end', onEnd);
      stream.removeListener('error', onError);
      stream.pause();
      resolve(result);
    };
    const collected = () => Buffer.concat(chunks, Math.min(size, options.maxBytes));
    const onData = (chunk: Buffer | string) => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      if (overflow) return;
      if (size + buf.length > options.maxBytes) {
        chunks.push(buf.subarray(0, options.maxBytes - size));
        size = options.maxBytes;
        overflow = true;
        finish({
          ok: false,
          reason: 'too-big',
          bytes: collected(),
          detail: `stdin is larger than ${options.maxBytes} bytes`,
        });
        // Keep draining so the agent's write does not block on a full pipe.
        stream.on('data', () => {});
        stream.resume();
        return;
      }
      chunks.push(buf);
      size += buf.length;
    };
    const onEnd = () => finish({ ok: true, bytes: collected() });
    const onError = (error: Error) =>
      finish({ ok: false, reason: 'error', bytes: collected(), detail: error.message });
    const timer = setTimeout(
      () =>
        finish({
          ok: false,
          reason: 'timeout',
          bytes: collected(),
          detail: `stdin was not closed within ${options.timeoutMs} ms`,
        }),
      options.timeoutMs,
    );
    timer.unref?.();
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.resume();
  });
}
