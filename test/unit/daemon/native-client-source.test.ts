import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAST_CLIENT_VERSIONS, FAST_PROTOCOL, FAST_SOCKET } from '../../../src/daemon/listen/fast-server.js';
import { SPAWNER_HELLO, SPAWNER_MAX_FRAME } from '../../../src/daemon/spawn/spawner.js';

// native/hookd-client.c must build with any C99 compiler a user may have (macOS clang included): it
// compiles here as strict C99, warning-free, and says the version and protocol the daemon serves.
const SOURCE = resolve(import.meta.dirname, '../../../native/hookd-client.c');
const source = readFileSync(SOURCE, 'utf8');
// The daemon's spawner (native/hookd-spawner.c) is held to the same.
const SPAWNER_SOURCE = resolve(import.meta.dirname, '../../../native/hookd-spawner.c');
const spawnerSource = readFileSync(SPAWNER_SOURCE, 'utf8');
const cc = process.env.CC || 'cc';
const hasCc = spawnSync(cc, ['--version'], { stdio: 'ignore' }).status === 0;

describe('the native fast client source', () => {
  it('speaks the protocol and a client version the daemon serves', () => {
    expect(source).toMatch(new RegExp(`#define PROTOCOL ${FAST_PROTOCOL}\\n`));
    const version = Number(/#define CLIENT_VERSION (\d+)\n#endif/.exec(source)?.[1]);
    expect(version).toBeGreaterThanOrEqual(FAST_CLIENT_VERSIONS.min);
    expect(version).toBeLessThanOrEqual(FAST_CLIENT_VERSIONS.max);
  });

  it('never runs a shell; talks to a unix socket only, after the kernel says who listens on it', () => {
    expect(source).not.toMatch(/\b(system|popen)\s*\(/);
    expect(source).not.toMatch(/\bexecl?p?e?\s*\(\s*"\/bin\/sh"/);
    expect(source).not.toMatch(/\bAF_INET6?\b|\bsockaddr_in6?\b/);
    expect(source).toMatch(/socket\(AF_UNIX, SOCK_STREAM, 0\)/);
    expect(source).toMatch(/SO_PEERCRED/);
    expect(source).toMatch(/getpeereid\(/);
    expect(source).toContain(`#define SOCKET_NAME "${FAST_SOCKET}"\n`);
  });

  it('the spawner says the HELLO and takes the frames the daemon side expects; it runs no shell of its own', () => {
    expect(spawnerSource).toContain(`#define HELLO_TEXT "${SPAWNER_HELLO}"\n`);
    expect(SPAWNER_MAX_FRAME).toBe(48 * 1024 * 1024);
    expect(spawnerSource).toContain('#define MAX_FRAME (48UL * 1024 * 1024)\n');
    expect(spawnerSource).not.toMatch(/\b(system|popen)\s*\(|"\/bin\/sh"/);
  });

  it.runIf(hasCc || process.env.CI).each([SOURCE, SPAWNER_SOURCE])(
    '%s compiles as strict C99 without a warning',
    (file) => {
      const dir = mkdtempSync(join(tmpdir(), 'hookd-cc-'));
      try {
        const r = spawnSync(
          cc,
          ['-std=c99', '-pedantic', '-Wall', '-Wextra', '-Werror', '-o', join(dir, 'c'), file],
          { encoding: 'utf8' },
        );
        expect(r.stderr).toBe('');
        expect(r.status).toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
