import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logFilePath } from '../../../src/paths.js';
import { HOOKD_BIN } from '../../helpers/fixtures.js';
import { isolatedEnv, makeTempDir } from '../../helpers/temp.js';
import { fuzzOptions, hostileEvent, hostileInput, serialize } from './arbitraries.js';
import { jsonLines } from '../../helpers/json-lines.js';

// Property tests over the built `hookd hook`, spawned exactly as the agent spawns it (`sh -c`, the
// event's cwd as the process cwd when it exists, the bytes on stdin). Fixed seed, bounded count.

let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
let project: string;
let marks: string;
let logFile: string;

beforeAll(() => {
  tmp = makeTempDir();
  project = join(tmp.dir, 'project');
  mkdirSync(project);
  marks = join(tmp.dir, 'guard-ran');
  env = isolatedEnv(tmp.dir, { HOOKD_DAEMON: '0', FUZZ_MARKS: marks });
  logFile = logFilePath(env);
  // A user guard that denies every shell call, and records that it ran.
  writeFileSync(
    env.HOOKD_CONFIG!,
    JSON.stringify({
      hooks: {
        PreToolUse: [
          {
            matcher: 'Execute|Bash',
            hooks: [
              {
                type: 'command',
                name: 'guard',
                blocking: true,
                command: 'echo ran >> "$FUZZ_MARKS"; echo "no shell in fuzz" >&2; exit 2',
              },
            ],
          },
        ],
      },
    }),
  );
});
afterAll(() => tmp.cleanup());

function runHook(stdin: Buffer, cwd: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', `"${process.execPath}" "${HOOKD_BIN}" hook`], {
      env,
      cwd,
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
    child.stdin.on('error', () => {});
    child.stdin.end(stdin);
  });
}

const logRecords = () => jsonLines(logFile);

const guardRuns = () => (existsSync(marks) ? readFileSync(marks, 'utf8').split('\n').length - 1 : 0);

describe('hookd hook under hostile input (fast-check, fixed seed)', () => {
  it('always exits 0 or 2 and records what it was given', async () => {
    await fc.assert(
      fc.asyncProperty(hostileInput(project), async (bytes) => {
        const before = logRecords().length;
        const ran = await runHook(bytes, project);
        expect([0, 2]).toContain(ran.code);
        const added = logRecords().slice(before);
        expect(added.some((r) => r.kind === 'event' || r.kind === 'bad-input')).toBe(true);
        expect(added.some((r) => r.kind === 'crash')).toBe(false);
      }),
      fuzzOptions(60),
    );
  });

  it("runs the user's guard on every shell call it matches, whatever else the event holds", async () => {
    await fc.assert(
      fc.asyncProperty(
        hostileEvent(project, { tool_name: fc.constantFrom('Execute', 'Bash') }),
        async (event) => {
          const before = guardRuns();
          const cwd = typeof event.cwd === 'string' && existsSync(event.cwd) ? event.cwd : project;
          const ran = await runHook(Buffer.from(serialize({ ...event, hook_event_name: 'PreToolUse' })), cwd);
          expect(ran.code).toBe(2);
          expect(ran.stderr).toContain('no shell in fuzz');
          expect(guardRuns()).toBe(before + 1);
        },
      ),
      fuzzOptions(40),
    );
  });
});
