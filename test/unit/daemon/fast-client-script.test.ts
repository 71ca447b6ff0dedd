import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAST_CLIENT_VERSIONS } from '../../../src/daemon/fast-server.js';

// bin/hookd-client.bash must run under the bash 3.2 that macOS ships. No bash 3.2 runs here, so this
// checks that it parses and that it uses none of the features added after 3.2 (docs/hook.md).
const CLIENT = resolve(import.meta.dirname, '../../../bin/hookd-client.bash');
const code = readFileSync(CLIENT, 'utf8')
  .split('\n')
  .filter((line) => !/^\s*#/.test(line))
  .join('\n');

const AFTER_3_2: Array<[string, RegExp]> = [
  ['mapfile/readarray (4.0)', /\b(mapfile|readarray)\b/],
  ['associative arrays (4.0)', /\bdeclare\s+-[a-zA-Z]*A/],
  ['${var@op} (4.4)', /\$\{[^}]*@[QEPAaUuLK]\}/],
  ['case modification ${var,,} ${var^^} (4.0)', /\$\{[^}]*(,,|\^\^|,|\^)\}/],
  [';& and ;;& in case (4.0)', /;;&|;&/],
  ['|& (4.0)', /\|&/],
  ['&>> (4.0)', /&>>/],
  ['coproc (4.0)', /\bcoproc\b/],
  ['[[ -v ]] (4.2)', /-v\s+\w/],
  ['wait -n (4.3)', /\bwait\s+-n\b/],
  ['EPOCHREALTIME/EPOCHSECONDS (5.0)', /\bEPOCH(REAL)?TIME|EPOCHSECONDS/],
  ['negative array index (4.3)', /\[\s*-\d+\s*\]/],
  ['read -t with a fraction (4.0)', /read\b[^\n]*-t\s*("?\$?\{?\w*\}?"?)?\s*\d*\.\d/],
  ['{var}> automatic fds (4.1)', /\{\w+\}[<>]/],
  ['shopt -s lastpipe/globstar (4.x)', /\b(lastpipe|globstar)\b/],
];

describe('bin/hookd-client.bash (bash 3.2)', () => {
  it('parses (bash -n)', () => {
    const r = spawnSync('/bin/bash', ['-n', CLIENT], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it.each(AFTER_3_2)('uses no %s', (_what, pattern) => {
    expect(code).not.toMatch(pattern);
  });

  it('the checks catch what they look for', () => {
    const samples = [
      'mapfile -t a',
      'declare -A m',
      '${x@Q}',
      '${x,,}',
      'read -t 0.5 x',
      'echo {fd}>f',
      '${a[-1]}',
    ];
    for (const sample of samples)
      expect(
        AFTER_3_2.some(([, p]) => p.test(sample)),
        sample,
      ).toBe(true);
  });

  // Speed (bench/fast-path.mjs): a `<&3` redirection is a dozen system calls, and `read -t` three more
  // per byte (bash reads a socket a byte at a time).
  it('reads the socket with -u 3, and waits with -t for the first byte of the ACK only', () => {
    expect(code).not.toMatch(/\bread\b[^\n]*<&3/);
    expect(code).toMatch(/\n\s*IFS= read -r -u 3 -t "\$__hk_wait" -n 1 __hk_c \|\| __hk_fallback/);
    expect(code).toMatch(/\n\s*IFS=' ' read -r -u 3 __hk_ack __hk_lost __hk_id \|\| __hk_fallback/);
  });

  it('says a client version the daemon serves', () => {
    const version = Number(/\n__hk_cv=(\d+) /.exec(readFileSync(CLIENT, 'utf8'))?.[1]);
    expect(version).toBeGreaterThanOrEqual(FAST_CLIENT_VERSIONS.min);
    expect(version).toBeLessThanOrEqual(FAST_CLIENT_VERSIONS.max);
  });
});
