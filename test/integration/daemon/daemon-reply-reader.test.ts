import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { requestDaemon } from '../../../src/link/client.js';
import { makeTempDir } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';

// How the client reads the daemon's reply lines (src/link/client.ts): every request of the hook and the
// CLI goes through one reader. A stand-in daemon on a real unix socket answers as a test tells it to.

let tmp: ReturnType<typeof makeTempDir>;
let server: Server;
let socketPath: string;
let answer: (socket: Socket, line: string) => void;
const closed: Socket[] = [];

beforeEach(async () => {
  tmp = makeTempDir('hkrr-');
  socketPath = join(tmp.dir, 'd.sock');
  server = createServer((socket) => {
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('close', () => closed.push(socket));
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      const newline = buffer.indexOf('\n');
      if (newline !== -1) answer(socket, buffer.slice(0, newline));
    });
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
});
afterEach(async () => {
  closed.length = 0;
  await new Promise((resolve) => server.close(resolve));
  tmp.cleanup();
});

const ask = (timeoutMs = 5000) => requestDaemon({ v: 1, type: 'ping' }, { socketPath, timeoutMs });

describe("the client's reader of the daemon's replies", () => {
  it('takes a reply that comes in pieces, and only its first line', async () => {
    answer = (socket) => {
      socket.write('{"v":1,');
      setImmediate(() => socket.write('"ok":true,"n":1}\n{"v":1,"ok":true,"n":2}\n'));
    };
    expect(await ask()).toEqual({ ok: true, reply: { v: 1, ok: true, n: 1 } });
  });

  it('decodes a character whose bytes come in two pieces', async () => {
    const line = Buffer.from('{"v":1,"ok":true,"s":"é漢"}\n');
    const cut = line.indexOf(0xc3) + 1;
    answer = (socket) => {
      socket.write(line.subarray(0, cut));
      setImmediate(() => socket.write(line.subarray(cut)));
    };
    expect(await ask()).toEqual({ ok: true, reply: { v: 1, ok: true, s: 'é漢' } });
  });

  it.each([
    ['a number', '5'],
    ['an array', '[1,2]'],
    ['null', 'null'],
    ['not JSON', '{"v":1,'],
  ])('a reply line that is %s is no reply', async (_what, line) => {
    answer = (socket) => socket.write(`${line}\n`);
    expect(await ask()).toEqual({
      ok: false,
      error: 'the daemon answered with invalid JSON',
      code: 'EPROTO',
    });
  });

  it('a daemon that does not answer in time: the connection is closed, not left open', async () => {
    answer = () => {};
    expect(await ask(100)).toMatchObject({ ok: false, code: 'ETIMEDOUT' });
    await waitFor(() => closed.length === 1);
  });

  it('a daemon that closes without answering', async () => {
    answer = (socket) => socket.end();
    expect(await ask()).toEqual({
      ok: false,
      error: 'the daemon closed the connection without answering',
      code: 'ECONNRESET',
    });
  });
});
