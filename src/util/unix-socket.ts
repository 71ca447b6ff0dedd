import { closeSync, constants, openSync } from 'node:fs';
import type { Server } from 'node:net';
import { join } from 'node:path';

// On the hook's start-up path: Node built-ins only.

/**
 * The longest path a unix socket address holds, in bytes without its NUL: 107 on Linux, 103 on macOS and
 * the BSDs. A longer runtime dir is reached through the folder itself (socketAddress, listenInDir).
 */
export const MAX_SOCKET_PATH_BYTES = process.platform === 'linux' ? 107 : 103;

/** True when `<dir>/<name>` fits in a unix socket address as an absolute path. */
export function socketPathFits(dir: string, name: string): boolean {
  return Buffer.byteLength(join(dir, name)) <= MAX_SOCKET_PATH_BYTES;
}

/**
 * Why `<dir>/<name>` cannot be used as a unix socket here, or undefined when it can: a path longer than a
 * socket address holds works on Linux (through /proc/self/fd), not elsewhere.
 */
export function socketPathProblem(dir: string, name: string): string | undefined {
  if (socketPathFits(dir, name) || process.platform === 'linux') return undefined;
  return `${join(dir, name)} is ${Buffer.byteLength(join(dir, name))} bytes, longer than a unix socket path may be here (${MAX_SOCKET_PATH_BYTES}); set HOOKD_RUNTIME_DIR to a shorter private folder`;
}

/**
 * The address to connect to `<dir>/<name>`: the absolute path when it fits; else, on Linux, the path
 * through an fd of the folder (`/proc/self/fd/<fd>/<name>`), closed by `release` once connected.
 */
export function socketAddress(dir: string, name: string): { path: string; release: () => void } {
  const path = join(dir, name);
  if (socketPathFits(dir, name) || process.platform !== 'linux') return { path, release: () => {} };
  let fd: number;
  try {
    fd = openSync(dir, constants.O_RDONLY | (constants.O_DIRECTORY ?? 0));
  } catch {
    return { path, release: () => {} };
  }
  let open = true;
  return {
    path: `/proc/self/fd/${fd}/${name}`,
    // Once only: a second close could close a descriptor the process has opened since.
    release: () => {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}

/**
 * Listens on the unix socket `<dir>/<name>`. A path longer than a socket address holds is bound from
 * inside the folder (the bind is synchronous within listen(), so the process's cwd is back at once).
 */
export function listenInDir(server: Server, dir: string, name: string, backlog = 511): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    const listening = () => {
      server.off('error', reject);
      resolve();
    };
    if (socketPathFits(dir, name)) {
      server.listen({ path: join(dir, name), backlog }, listening);
      return;
    }
    const back = process.cwd();
    process.chdir(dir);
    try {
      server.listen({ path: name, backlog }, listening);
    } finally {
      process.chdir(back);
    }
  });
}
