import { join } from 'node:path';
import { connect } from 'node:net';
import type { DaemonConfig } from '../config/daemon-schema.js';
import {
  FAST_CLIENT_VERSIONS,
  FAST_FILE,
  FAST_HELLO,
  FAST_PROTOCOL,
  readFastStatus,
} from '../daemon/fast-server.js';
import { runtimeDir, type Env } from '../paths.js';
import { readPrivateFile } from '../util/private-fs.js';
import type { DaemonView } from './daemon-view.js';
import { result, type CheckResult } from './types.js';

const ID = 'fast';
const TITLE = 'Fast client listener';
const RESTART = 'hookd daemon stop && hookd daemon start';

/** Connects and reads the daemon's greeting (sends nothing); resolves with its first line, or why not. */
function greeting(port: number, timeoutMs: number): Promise<{ line: string } | { error: string }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const done = (r: { line: string } | { error: string }) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(r);
    };
    const timer = setTimeout(() => done({ error: `no greeting within ${timeoutMs} ms` }), timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const nl = text.indexOf('\n');
      if (nl >= 0) done({ line: text.slice(0, nl) });
      else if (text.length > 512) done({ error: 'an over-long greeting' });
    });
    socket.on('error', (error: NodeJS.ErrnoException) => done({ error: error.code ?? error.message }));
    socket.on('close', () => done({ error: 'closed without a greeting' }));
  });
}

/**
 * Whether the fast client's listener is up and speaks this hookd's protocol (issue 12), and the version
 * mismatches the daemon saw (those events took the Node path). Sends nothing to the listener.
 */
export async function checkFast(
  env: Env,
  view: DaemonView,
  daemon: DaemonConfig,
  timeoutMs: number,
): Promise<CheckResult> {
  const served = `protocol ${FAST_PROTOCOL}, client versions ${FAST_CLIENT_VERSIONS.min}-${FAST_CLIENT_VERSIONS.max}`;
  if (!daemon.fastListener)
    return result(
      ID,
      TITLE,
      'ok',
      'off (daemon.fastListener: false): the fast client always takes the Node path',
    );
  const dir = runtimeDir(env);
  const file = join(dir, FAST_FILE);
  const read = readPrivateFile(file, 4096);
  if (!read.ok) {
    if (!read.missing) return result(ID, TITLE, 'fail', read.problem, `remove ${file}, then ${RESTART}`);
    if (!view.running)
      return result(
        ID,
        TITLE,
        'skip',
        'the daemon is not running: the fast client takes the Node path, which starts it',
      );
    return result(
      ID,
      TITLE,
      'warn',
      `the daemon runs without the fast listener (${file} is missing; started before daemon.fastListener was on?): every event takes the Node path`,
      RESTART,
    );
  }
  const [portText = '', secret = '', , protocol = '?', generation = '?'] = read.text.trim().split(' ');
  const port = Number(portText);
  if (!/^\d{1,5}$/.test(portText) || port < 1 || port > 65535 || secret === '')
    return result(ID, TITLE, 'fail', `${file} is not a listener file`, `remove it, then ${RESTART}`);
  const problems: string[] = [];
  const fixes: string[] = [];
  if (protocol !== String(FAST_PROTOCOL)) {
    problems.push(
      `the daemon speaks protocol ${protocol}, this hookd ${FAST_PROTOCOL}: an older or newer daemon is running; the client falls back to the Node path`,
    );
    fixes.push(RESTART);
  }
  const hello = await greeting(port, timeoutMs);
  let up = false;
  if ('error' in hello) {
    problems.push(`127.0.0.1:${port} did not greet (${hello.error}): the client falls back to the Node path`);
    fixes.push(view.running ? RESTART : 'hookd daemon start');
  } else if (hello.line !== `${FAST_HELLO} ${secret}`) {
    problems.push(
      `127.0.0.1:${port} is not this daemon's listener (a stale port now used by another program): the client sends it nothing and takes the Node path`,
    );
    fixes.push(RESTART);
  } else up = true;
  const status = readFastStatus(dir);
  if (status && status.mismatches > 0) {
    const last = status.lastMismatch;
    problems.push(
      `${status.mismatches} request(s) from a client this daemon does not serve took the Node path` +
        (last
          ? `; the last: client protocol ${last.protocol}, version ${last.client}, at ${new Date(last.at).toISOString()}`
          : ''),
    );
    fixes.push("re-run `hookd install` so the agents run this hookd's client, then restart the daemon");
  }
  const summary = up
    ? `up on 127.0.0.1:${port}, ${served}, config generation ${generation}`
    : `listener file for 127.0.0.1:${port} (protocol ${protocol})`;
  if (problems.length === 0) return result(ID, TITLE, 'ok', summary);
  return result(ID, TITLE, 'warn', [summary, ...problems].join('\n'), fixes.join('; '));
}
