/**
 * Collects a stream's bytes with bounded memory: the first half of the cap and the last half are kept,
 * the middle is counted and dropped. A command printing 50 MB costs at most `capBytes` here.
 */
export class BoundedBuffer {
  /** The first bytes, up to half the cap, kept whole. */
  readonly head: Buffer[] = [];
  private headSize = 0;
  private tail: Buffer[] = [];
  private tailSize = 0;
  totalBytes = 0;

  constructor(private readonly capBytes: number) {}

  push(chunk: Buffer): void {
    this.totalBytes += chunk.length;
    const headCap = Math.ceil(this.capBytes / 2);
    if (this.headSize < headCap) {
      const take = Math.min(headCap - this.headSize, chunk.length);
      this.head.push(chunk.subarray(0, take));
      this.headSize += take;
      chunk = chunk.subarray(take);
      if (chunk.length === 0) return;
    }
    const tailCap = this.capBytes - headCap;
    this.tail.push(chunk);
    this.tailSize += chunk.length;
    while (this.tailSize - (this.tail[0]?.length ?? 0) >= tailCap && this.tail.length > 1) {
      this.tailSize -= this.tail.shift()!.length;
    }
    if (this.tailSize > tailCap * 2) {
      const joined = Buffer.concat(this.tail).subarray(this.tailSize - tailCap);
      this.tail = [joined];
      this.tailSize = joined.length;
    }
  }

  get truncated(): boolean {
    return this.totalBytes > this.capBytes;
  }

  /** The kept text; when bytes were dropped, a marker says how many. */
  text(): string {
    const tailCap = this.capBytes - Math.ceil(this.capBytes / 2);
    const head = Buffer.concat(this.head).toString('utf8');
    let tail = Buffer.concat(this.tail);
    if (tail.length > tailCap) tail = tail.subarray(tail.length - tailCap);
    if (!this.truncated) return head + tail.toString('utf8');
    const dropped = this.totalBytes - this.headSize - tail.length;
    return `${head}\n[... ${dropped} bytes dropped by hookd ...]\n${tail.toString('utf8')}`;
  }

  /** The last `bytes` bytes of the output, for log records. */
  tailText(bytes: number): string {
    const all = Buffer.concat([...(this.truncated ? [] : this.head), ...this.tail]);
    return all.subarray(Math.max(0, all.length - bytes)).toString('utf8');
  }
}
