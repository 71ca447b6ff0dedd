import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';

/** A temp dir removed by the returned cleanup. Short prefix: unix socket paths are limited to ~107 bytes. */
export function makeTempDir(prefix = 'hkd-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * An isolated hookd environment: config, state, data and runtime dirs all inside one temp dir. The hook's
 * hand-off to the daemon is off (HOOKD_DAEMON=0) unless a test turns it on, so no test leaves a daemon
 * started in the background behind; tests of the daemon start and kill their own.
 */
export function isolatedEnv(dir: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('HOOKD')) env[k] = v;
  delete env.FACTORY_PROJECT_DIR;
  delete env.DROID_PROJECT_DIR;
  delete env.CLAUDE_PROJECT_DIR;
  return {
    ...env,
    HOME: join(dir, 'home'),
    XDG_CONFIG_HOME: join(dir, 'home', '.config'),
    XDG_STATE_HOME: join(dir, 'home', '.local', 'state'),
    XDG_DATA_HOME: join(dir, 'home', '.local', 'share'),
    XDG_RUNTIME_DIR: join(dir, 'run'),
    HOOKD_CONFIG: join(dir, 'config.json'),
    HOOKD_DAEMON: '0',
    ...extra,
  };
}

/**
 * A fresh temp dir for each test of the file (made in beforeEach, removed in afterEach); `.dir` is its
 * path with every symlink resolved, as the code under test resolves paths (macOS's /tmp is a link).
 */
export function useTempDir(prefix = 'hkd-'): { dir: string } {
  const box = { dir: '' };
  let cleanup = () => {};
  beforeEach(() => {
    const tmp = makeTempDir(prefix);
    cleanup = tmp.cleanup;
    box.dir = realpathSync(tmp.dir);
  });
  afterEach(() => cleanup());
  return box;
}
