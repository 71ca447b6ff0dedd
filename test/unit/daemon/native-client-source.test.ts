import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { wireHeader } from '../../../src/link/wire.js';

// native/hookd-client.c must build with any C99 compiler a user may have (macOS clang included): it
// compiles here as strict C99, warning-free. Its wire constants come from native/hookd-wire.h, which
// `npm run build` writes from src/link/wire.ts.
const SOURCE = resolve(import.meta.dirname, '../../../native/hookd-client.c');
const source = readFileSync(SOURCE, 'utf8');
// The daemon's spawner (native/hookd-spawner.c) is held to the same.
const SPAWNER_SOURCE = resolve(import.meta.dirname, '../../../native/hookd-spawner.c');
const spawnerSource = readFileSync(SPAWNER_SOURCE, 'utf8');
const cc = process.env.CC || 'cc';
const hasCc = spawnSync(cc, ['--version'], { stdio: 'ignore' }).status === 0;

describe('the native fast client source', () => {
  it('native/hookd-wire.h is what src/link/wire.ts generates (run npm run build after changing it)', () => {
    const header = readFileSync(resolve(import.meta.dirname, '../../../native/hookd-wire.h'), 'utf8');
    expect(header).toBe(wireHeader());
  });

  it.each([
    ['client', () => source],
    ['spawner', () => spawnerSource],
  ])('the %s takes its wire constants from the header and spells none of them itself', (_, text) => {
    expect(text()).toContain('#include "hookd-wire.h"\n');
    expect(text()).not.toMatch(/"fast\.sock"|"HOOKD-FAST|"hookd-spawner \d/);
  });

  it('the spawner spells no frame type, stream, exit code or output chunk of its own', () => {
    // Frame types are one-letter char literals; they, the streams' numbers and the limits come from wire.ts.
    expect(spawnerSource).not.toMatch(/'[A-Z]'/);
    expect(spawnerSource).not.toMatch(/64 \* 1024\)|stream \+ 1|die\(2,/);
  });

  it('never runs a shell; talks to a unix socket only, after the kernel says who listens on it', () => {
    expect(source).not.toMatch(/\b(system|popen)\s*\(/);
    expect(source).not.toMatch(/\bexecl?p?e?\s*\(\s*"\/bin\/sh"/);
    expect(source).not.toMatch(/\bAF_INET6?\b|\bsockaddr_in6?\b/);
    expect(source).toMatch(/socket\(AF_UNIX, SOCK_STREAM, 0\)/);
    expect(source).toMatch(/SO_PEERCRED/);
    expect(source).toMatch(/getpeereid\(/);
  });

  it('the spawner runs no shell of its own', () => {
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
