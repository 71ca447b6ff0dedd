/**
 * Reads at most `maxBytes` of a fetch Response body, then cancels the rest: a receiver answering with
 * 400 MB (or an endless stream) costs `maxBytes` of memory, not 400 MB. `truncated` says whether more
 * was there. Bodies are only for error messages, except where the caller needs JSON (it sets the cap).
 */
export async function readBodyCapped(
  response: Response,
  maxBytes: number,
): Promise<{ text: string; truncated: boolean }> {
  const body = response.body;
  if (!body) return { text: '', truncated: false };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const room = maxBytes - size;
      if (value.byteLength > room) {
        if (room > 0) chunks.push(value.subarray(0, room));
        size = maxBytes;
        truncated = true;
        break;
      }
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    if (truncated) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
  return { text: Buffer.concat(chunks, size).toString('utf8'), truncated };
}

/** What channels read of an answer: enough for an error message or a small JSON reply. */
export const CHANNEL_BODY_MAX_BYTES = 8 * 1024;
