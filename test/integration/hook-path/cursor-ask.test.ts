import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useHookSandbox } from '../../helpers/agent-spawn.js';
import { REPO_DIR } from '../../helpers/fixtures.js';
import { jsonLines } from '../../helpers/json-lines.js';
import { runHookd } from '../../helpers/run-hookd.js';
import { makeTempDir } from '../../helpers/temp.js';
import { waitFor } from '../../helpers/wait.js';
import {
  handOffEnv,
  startFastDaemon,
  startHook,
  TRANSPORTS,
  writeFastConfig,
} from '../daemon/fast-client-helpers.js';
import { stopDaemon, useProcessCleanup } from '../daemon/process-helpers.js';

// A hookd guard that asks (or denies in JSON) under Cursor, through the built `hookd hook`, from Cursor's
// documented payloads (test/fixtures/cursor-docs/, written from its docs, not recorded: Cursor does not
// run here). Cursor's beforeShellExecution and beforeMCPExecution answers take `"permission": "ask"`;
// its preToolUse and beforeReadFile answers only allow or deny, so an ask there is refused, saying so.

const box = useHookSandbox();
const cursor = (name: string) =>
  JSON.parse(readFileSync(join(REPO_DIR, 'test', 'fixtures', 'cursor-docs', name), 'utf8')) as Record<
    string,
    unknown
  >;

/** A guard that answers in Claude Code's words: ask (or deny) with a reason, exit 0. */
const answering = (decision: 'ask' | 'deny', reason: string, name = `${decision}-guard`) => {
  const answer = {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: decision,
      permissionDecisionReason: reason,
    },
  };
  return { hooks: [{ type: 'command', name, command: `echo '${JSON.stringify(answer)}'` }] };
};

const EVENTS = ['PreToolUse', 'beforeShellExecution', 'beforeMCPExecution', 'beforeReadFile'];

function everywhere(...entries: Record<string, unknown>[]): Record<string, unknown> {
  return Object.fromEntries(EVENTS.map((event) => [event, entries]));
}

async function hook(name: string) {
  return runHookd(['hook', '--agent', 'claude'], {
    env: box.env,
    cwd: box.project,
    stdin: JSON.stringify({ ...cursor(name), workspace_roots: [box.project], cwd: box.project }),
  });
}

describe('a hookd guard that asks under Cursor', () => {
  it("reaches Cursor's beforeShellExecution and beforeMCPExecution as its own ask", async () => {
    box.writeConfig({ hooks: everywhere(answering('ask', 'a person looks at this first')) });
    for (const name of ['beforeShellExecution.json', 'beforeMCPExecution.json']) {
      const ran = await hook(name);
      expect(ran.code, `${name}: ${ran.stderr}`).toBe(0);
      expect(JSON.parse(ran.stdout)).toEqual({
        permission: 'ask',
        user_message: 'a person looks at this first',
        agent_message: 'a person looks at this first',
      });
    }
  });

  it('is refused, saying so, where Cursor cannot ask: preToolUse and beforeReadFile', async () => {
    box.writeConfig({ hooks: everywhere(answering('ask', 'a person looks at this first')) });
    for (const [name, event] of [
      ['preToolUse-Shell.json', 'PreToolUse'],
      ['beforeReadFile.json', 'beforeReadFile'],
    ] as const) {
      const ran = await hook(name);
      const reason = `a person looks at this first (ask-guard asked for your approval; Cursor's ${event} hooks cannot ask, so hookd refuses)`;
      expect(ran.code, `${name}: ${ran.stderr}`).toBe(2);
      expect(JSON.parse(ran.stdout)).toEqual({
        permission: 'deny',
        user_message: reason,
        agent_message: reason,
      });
      expect(ran.stderr).toBe(`${reason}\n`);
    }
  });

  it("a deny written in Claude Code's JSON is a block in Cursor's answer too, and beats an ask", async () => {
    box.writeConfig({
      hooks: everywhere(answering('ask', 'maybe'), answering('deny', 'not this one')),
    });
    for (const name of ['beforeShellExecution.json', 'preToolUse-Shell.json', 'beforeReadFile.json']) {
      const ran = await hook(name);
      expect(ran.code, `${name}: ${ran.stderr}`).toBe(2);
      expect(JSON.parse(ran.stdout)).toEqual({
        permission: 'deny',
        user_message: 'not this one',
        agent_message: 'not this one',
      });
    }
  });

  it('an allow stays an allow, and an ask without a reason says who asks', async () => {
    box.writeConfig({
      hooks: {
        beforeShellExecution: [
          {
            hooks: [
              {
                type: 'command',
                name: 'quiet',
                command: `echo '{"hookSpecificOutput":{"permissionDecision":"ask"}}'`,
              },
            ],
          },
        ],
        beforeMCPExecution: [
          {
            hooks: [
              { type: 'command', command: `echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'` },
            ],
          },
        ],
      },
    });
    const asked = await hook('beforeShellExecution.json');
    expect(asked.code).toBe(0);
    expect(JSON.parse(asked.stdout)).toMatchObject({
      permission: 'ask',
      user_message: 'quiet asks for your approval',
    });
    const allowed = await hook('beforeMCPExecution.json');
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).not.toContain('"permission"');
  });
});

describe('a hookd guard that asks under Cursor, through the fast client and the daemon', () => {
  const { pids, cleanups } = useProcessCleanup();

  it('is answered in the same words as on the Node path', async () => {
    const tmp = makeTempDir('hkcask-');
    cleanups.push(() => tmp.cleanup());
    const env = handOffEnv(tmp.dir);
    writeFastConfig(env, everywhere(answering('ask', 'a person looks at this first')));
    const daemon = await startFastDaemon(env);
    cleanups.push(() => stopDaemon(daemon));
    const run = async (name: string) => {
      const stdin = JSON.stringify({ ...cursor(name), workspace_roots: [tmp.dir], cwd: tmp.dir });
      const h = startHook(TRANSPORTS.fast('claude'), { env, cwd: tmp.dir, stdin });
      pids.push(h.child.pid!);
      const ran = await h.done;
      return { code: ran.code, stdout: ran.stdout.toString(), stderr: ran.stderr.toString() };
    };
    const asked = await run('beforeShellExecution.json');
    expect(asked.code, asked.stderr).toBe(0);
    expect(JSON.parse(asked.stdout)).toMatchObject({ permission: 'ask' });
    const refused = await run('beforeReadFile.json');
    expect(refused.code, refused.stderr).toBe(2);
    expect(JSON.parse(refused.stdout)).toMatchObject({ permission: 'deny' });
    expect(refused.stderr).toContain("Cursor's beforeReadFile hooks cannot ask, so hookd refuses");
    // Both ran in the daemon, not in a hook process of their own (it logs an event after answering it).
    const logged = () =>
      jsonLines<{ kind?: string; pid?: number }>(join(env.HOOKD_STATE_DIR!, 'logs', 'hookd.log'))
        .filter((l) => l.kind === 'event')
        .map((l) => l.pid);
    await waitFor(() => logged().length === 2, 20_000, 'both events in the hook log');
    expect(logged()).toEqual([daemon.pid, daemon.pid]);
  });
});
