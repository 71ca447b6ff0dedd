import { createConnection } from 'node:net';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { listenOnSocket, MAX_QUEUED, type SocketServer } from '../../../src/daemon/listen/server.js';
import { makeTempDir } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';

// The daemon's socket answers one request at a time per connection. A peer that keeps sending behind a
// request that waits is read no further than MAX_QUEUED lines ahead; once the waiting request is answered
// the rest is read again and every line is answered, in order.
let server: SocketServer | undefined;
let tmp: ReturnType<typeof makeTempDir> | undefined;
afterEach(async () => {
  await server?.close();
  tmp?.cleanup();
  server = undefined;
  tmp = undefined;
});

it('reads a connection again once a request that held it is answered, and answers every line in order', async () => {
  tmp = makeTempDir('hookd-socket-');
  const path = join(tmp.dir, 'hookd.sock');
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let calls = 0;
  server = await listenOnSocket(path, async () => {
    calls++;
    if (calls === 1) await gate;
    return { ok: true, n: calls };
  });
  const lines = MAX_QUEUED * 6;
  const replies: number[] = [];
  const client = createConnection(path);
  let buffer = '';
  client.setEncoding('utf8');
  client.on('data', (chunk: string) => {
    buffer += chunk;
    let at: number;
    while ((at = buffer.indexOf('\n')) !== -1) {
      replies.push((JSON.parse(buffer.slice(0, at)) as { n: number }).n);
      buffer = buffer.slice(at + 1);
    }
  });
  try {
    const ping = `${JSON.stringify({ v: 1, type: 'ping' })}\n`;
    // More lines than the queue holds while the first waits: the daemon stops reading here ...
    client.write(ping.repeat(lines / 2));
    await waitFor(() => calls === 1);
    // ... so these are read only once the first request is answered.
    client.write(ping.repeat(lines / 2));
    expect(replies).toEqual([]);
    release();
    await waitFor(() => replies.length === lines);
    expect(replies).toEqual(Array.from({ length: lines }, (_, i) => i + 1));
  } finally {
    client.destroy();
  }
});
