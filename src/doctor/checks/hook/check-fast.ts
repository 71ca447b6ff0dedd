import { existsSync, lstatSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import type { DaemonConfig } from '../../../config/schemas/daemon-schema.js';
import { readFastStatus } from '../../../link/fast-status.js';
import { FAST_CLIENT_VERSIONS, FAST_PROTOCOL, FAST_SOCKET, LEGACY_FAST_FILE } from '../../../link/wire.js';
import { runtimeDir, type Env } from '../../../paths.js';
import { privateDirProblem } from '../../../util/private-fs.js';
import { socketAddress, socketPathProblem } from '../../../util/unix-socket.js';
import type { DaemonView } from '../daemon/daemon-view.js';
import { result, type CheckResult } from '../../types.js';

const ID = 'fast';
const TITLE = 'Fast client listener';
const RESTART = 'hookd daemon stop && hookd daemon start';

/** Connects to the socket and hangs up at once (sends nothing); resolves with why not, or undefined. */
function connects(dir: string, timeoutMs: number): Promise<string | undefined> {
  const address = socketAddress(dir, FAST_SOCKET);
  return new Promise((resolve) => {
    const socket = connect(address.path);
    const done = (problem: string | undefined) => {
      clearTimeout(timer);
      address.release();
      socket.destroy();
      resolve(problem);
    };
    const timer = setTimeout(() => done(`no connection within ${timeoutMs} ms`), timeoutMs);
    socket.on('connect', () => done(undefined));
    socket.on('error', (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
  });
}

/** Why the fast socket is not the user's own (the native client refuses it then), or undefined. */
function socketProblem(dir: string): string | undefined {
  const dirProblem = privateDirProblem(dir);
  if (dirProblem) return `the runtime dir ${dirProblem}`;
  const file = join(dir, FAST_SOCKET);
  const st = lstatSync(file, { throwIfNoEntry: false });
  if (!st) return undefined;
  if (!st.isSocket()) return `${file} is not a socket`;
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (uid !== undefined && st.uid !== uid) return `${file} belongs to another user (uid ${st.uid})`;
  return undefined;
}

/**
 * Whether the fast client's listener is up and speaks this hookd's protocol, and the version mismatches
 * the daemon saw (those events took the Node path). Sends nothing to the listener.
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
  const file = join(dir, FAST_SOCKET);
  const pathProblem = socketPathProblem(dir, FAST_SOCKET);
  if (pathProblem)
    return result(ID, TITLE, 'fail', pathProblem, 'export HOOKD_RUNTIME_DIR=<a short private dir>');
  const unsafe = existsSync(dir) ? socketProblem(dir) : undefined;
  if (unsafe)
    return result(
      ID,
      TITLE,
      'fail',
      `${unsafe}: the fast client refuses it and every event takes the Node path`,
      `use a runtime dir of your own that only you can write to (unset XDG_RUNTIME_DIR or set HOOKD_RUNTIME_DIR), then ${RESTART}`,
    );
  const problems: string[] = [];
  const fixes: string[] = [];
  if (daemon.httpHooks !== undefined) {
    problems.push(
      "daemon.httpHooks is no longer used: hookd does not serve Claude Code's http hooks any more (a loopback port cannot prove who listens on it)",
    );
    fixes.push('remove "httpHooks" from the "daemon" section of your hookd config');
  }
  if (existsSync(join(dir, LEGACY_FAST_FILE))) {
    problems.push(
      `${join(dir, LEGACY_FAST_FILE)} is the loopback listener of an older hookd daemon, which another local user could impersonate`,
    );
    fixes.push(RESTART);
  }
  if (!view.running)
    return problems.length > 0
      ? result(ID, TITLE, 'warn', problems.join('\n'), fixes.join('; '))
      : result(
          ID,
          TITLE,
          'skip',
          'the daemon is not running: the fast client takes the Node path, which starts it',
        );
  const listening = view.stats?.listening;
  if (!listening?.fast) {
    problems.push(
      listening
        ? 'the daemon runs without the fast listener (started before daemon.fastListener was on?): every event takes the Node path'
        : 'the running daemon is of an older hookd (it does not say what it listens on): every event takes the Node path',
    );
    fixes.push(RESTART);
    return result(ID, TITLE, 'warn', problems.join('\n'), fixes.join('; '));
  }
  const fast = listening.fast;
  if (
    fast.protocol !== FAST_PROTOCOL ||
    fast.clientVersions.min !== FAST_CLIENT_VERSIONS.min ||
    fast.clientVersions.max !== FAST_CLIENT_VERSIONS.max
  ) {
    problems.push(
      `the daemon speaks protocol ${fast.protocol} (client versions ${fast.clientVersions.min}-${fast.clientVersions.max}), this hookd ${served}: an older or newer daemon is running; the client falls back to the Node path`,
    );
    fixes.push(RESTART);
  }
  const unreachable = await connects(dir, timeoutMs);
  if (unreachable) {
    problems.push(
      `${file} does not take connections (${unreachable}): the client falls back to the Node path`,
    );
    fixes.push(RESTART);
  }
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
  const summary = `up on ${file}, ${served}`;
  if (problems.length === 0) return result(ID, TITLE, 'ok', summary);
  return result(ID, TITLE, 'warn', [summary, ...problems].join('\n'), fixes.join('; '));
}
