import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithAgent } from '../harness/availability.js';
import { toolOutputs } from '../harness/codex/fake-responses.js';
import { CODEX_EVENTS, captureHooks, runCodex, type CodexRun } from '../harness/codex/run-codex.js';
import { makeTempDir } from '../helpers/temp.js';

// The facts of Codex CLI 0.171.0's hooks that hookd relies on, observed with the real binary offline
// (`codex exec` against the scripted fake Responses API) and plain recording hooks (no hookd): the
// events of one shell call and a stop, how a PreToolUse hook blocks and what the model then sees,
// hook trust, a hook's timeout (seconds), and that hooks run outside Codex's sandbox.

const SHELL = 'echo hi > ran.txt; echo hi';
const SCRIPT = [{ shell: SHELL }, { text: 'Finished.' }];
/** The events one shell call and a stop fire, in order. */
const ONE_SHELL_CALL = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'Stop',
  'SessionEnd',
];
const PROMPT = 'Run echo hi, then report back.';
const DENY_JSON = JSON.stringify({
  hookSpecificOutput: {
    hookEventName: 'PreToolUse',
    permissionDecision: 'deny',
    permissionDecisionReason: 'denied by JSON',
  },
});

const temps: { cleanup: () => void }[] = [];
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
let session: CodexRun;
let exit2: CodexRun;
let jsonDeny: CodexRun;
let untrusted: CodexRun;
let sandboxed: CodexRun;

function tempDir(): string {
  const t = makeTempDir('hkcx-');
  temps.push(t);
  return t.dir;
}

const labels = (run: CodexRun) => run.captured.map((c) => c.label);
const lastOutputs = (run: CodexRun) => toolOutputs(run.requests.at(-1)!.body);

describeWithAgent('codex', 'the hooks of the real Codex CLI 0.171.0', (bin) => {
  beforeAll(async () => {
    const base = { bin, script: SCRIPT, prompt: PROMPT, env };
    // Every event wired, plus a SessionStart hook that never ends on its own (timeout 1 s)
    const dir = tempDir();
    const hooks = captureHooks(CODEX_EVENTS, join(dir, 'out', 'capture-spec.json')) as {
      hooks: Record<string, { hooks: unknown[] }[]>;
    };
    hooks.hooks.SessionStart![0]!.hooks.push({ type: 'command', command: 'sleep 600', timeout: 1 });
    session = await runCodex({ ...base, dir, hooks, trust: 'bypass' });
    const pre = (answer: { stdout?: string; stderr?: string; exit?: number }) => ({
      answers: { PreToolUse: answer },
    });
    exit2 = await runCodex({
      ...base,
      dir: tempDir(),
      events: CODEX_EVENTS,
      capture: pre({ exit: 2, stderr: 'denied by exit 2' }),
      trust: 'bypass',
    });
    jsonDeny = await runCodex({
      ...base,
      dir: tempDir(),
      events: CODEX_EVENTS,
      capture: pre({ stdout: DENY_JSON }),
      trust: 'bypass',
    });
    untrusted = await runCodex({ ...base, dir: tempDir(), events: CODEX_EVENTS, trust: 'none' });
    // Codex's own sandbox on; hooks trusted as a user does it; a unix socket in XDG_RUNTIME_DIR
    sandboxed = await runCodex({
      ...base,
      script: [
        {
          shell:
            "node -e \"require('net').connect(process.env.XDG_RUNTIME_DIR + '/probe.sock')" +
            ".on('connect', () => console.log('SHELL-CONNECTED')).on('error', (e) => console.log('SHELL-' + e.code))\"",
        },
        { text: 'Finished.' },
      ],
      dir: tempDir(),
      events: CODEX_EVENTS,
      trust: 'persisted',
      sandbox: 'workspace-write',
      socket: true,
    });
  });

  afterAll(() => {
    for (const t of temps) t.cleanup();
  });

  it('runs isolated and ends on its own', () => {
    for (const run of [session, exit2, jsonDeny, untrusted, sandboxed]) {
      expect(run.isolated || process.getuid?.() !== 0).toBe(true);
      expect(run.result).toMatchObject({ code: 0, timedOut: false });
    }
  });

  it('fires SessionStart, UserPromptSubmit, Pre/PostToolUse (Bash), Stop, SessionEnd for one shell call', () => {
    expect(labels(session)).toEqual(ONE_SHELL_CALL);
    const byEvent = Object.fromEntries(session.captured.map((c) => [c.label, c.payload!]));
    for (const [event, payload] of Object.entries(byEvent)) {
      expect(payload.hook_event_name).toBe(event);
      expect(payload.cwd).toBe(session.work);
      expect(String(payload.transcript_path)).toMatch(
        new RegExp(`^${session.codexHome}/sessions/\\d{4}/\\d\\d/\\d\\d/rollout-.*\\.jsonl$`),
      );
    }
    expect(new Set(Object.values(byEvent).map((p) => p.session_id)).size).toBe(1);
    expect(byEvent.SessionStart).toMatchObject({ source: 'startup', permission_mode: 'bypassPermissions' });
    expect(byEvent.UserPromptSubmit).toMatchObject({ prompt: PROMPT });
    expect(byEvent.PreToolUse).toMatchObject({ tool_name: 'Bash', tool_input: { command: SHELL } });
    expect(byEvent.PostToolUse).toMatchObject({ tool_name: 'Bash', tool_response: 'hi\n' });
    expect(byEvent.PostToolUse!.tool_use_id).toBe(byEvent.PreToolUse!.tool_use_id);
    expect(byEvent.Stop).toMatchObject({ stop_hook_active: false, last_assistant_message: 'Finished.' });
    expect(byEvent.SessionEnd).toMatchObject({ reason: 'other' });
    // The transcript the payloads name is there after the run
    expect(existsSync(String(byEvent.Stop!.transcript_path))).toBe(true);
  });

  it('passes no variables of its own to hooks and runs them in the session cwd', () => {
    for (const c of session.captured) {
      expect(c.cwd).toBe(session.work);
      expect(Object.keys(c.env).sort()).toEqual(['CODEX_HOME', 'HOME', 'PWD', 'XDG_RUNTIME_DIR']);
    }
  });

  it('abandons a hook at its timeout (seconds) and goes on', () => {
    // The `sleep 600` SessionStart hook had `timeout: 1`: the session still ran the command and ended
    expect(readFileSync(join(session.work, 'ran.txt'), 'utf8')).toBe('hi\n');
    expect(session.result.timedOut).toBe(false);
  });

  it('blocks a shell command on PreToolUse exit 2; the model sees the stderr reason', () => {
    expect(existsSync(join(exit2.work, 'ran.txt'))).toBe(false);
    expect(labels(exit2)).toEqual(['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'Stop', 'SessionEnd']);
    expect(lastOutputs(exit2)).toEqual([
      `Command blocked by PreToolUse hook: denied by exit 2. Command: ${SHELL}`,
    ]);
  });

  it('blocks a shell command on a JSON permissionDecision "deny"; the model sees the reason', () => {
    expect(existsSync(join(jsonDeny.work, 'ran.txt'))).toBe(false);
    expect(labels(jsonDeny)).not.toContain('PostToolUse');
    expect(lastOutputs(jsonDeny)).toEqual([
      `Command blocked by PreToolUse hook: denied by JSON. Command: ${SHELL}`,
    ]);
  });

  it('skips untrusted hooks silently: none runs, nothing is said, the command runs', () => {
    expect(untrusted.captured).toEqual([]);
    expect(readFileSync(join(untrusted.work, 'ran.txt'), 'utf8')).toBe('hi\n');
    expect(untrusted.stderr).not.toMatch(/hook/i);
    expect(JSON.stringify(untrusted.events)).not.toMatch(/hook/i);
    // With --dangerously-bypass-hook-trust, Codex says so in its --json stream
    expect(JSON.stringify(session.events)).toContain('--dangerously-bypass-hook-trust');
  });

  it('runs hooks trusted as its /hooks screen does (config.toml hooks.state trusted_hash)', () => {
    const listed = (sandboxed.result.hooksList as { data: { hooks: { trustStatus: string }[] }[] }).data;
    expect(listed.flatMap((d) => d.hooks.map((h) => h.trustStatus))).toEqual(
      CODEX_EVENTS.map(() => 'untrusted'),
    );
    expect(readFileSync(join(sandboxed.codexHome, 'config.toml'), 'utf8')).toMatch(
      /\[hooks\.state\."[^"]+hooks\.json:pre_tool_use:0:0"\]\ntrusted_hash = "sha256:[0-9a-f]{64}"/,
    );
    expect(labels(sandboxed)).toEqual(ONE_SHELL_CALL);
  });

  it('runs hooks outside its sandbox: they reach a unix socket the sandboxed shell cannot', () => {
    expect(sandboxed.captured.map((c) => c.socket)).toEqual(sandboxed.captured.map(() => 'connected'));
    expect(sandboxed.result.socketConnections).toBe(sandboxed.captured.length);
    const post = sandboxed.captured.find((c) => c.label === 'PostToolUse')!.payload!;
    expect(post.tool_response).toBe('SHELL-EPERM\n');
    // approval_policy "never" is reported as bypassPermissions even with the sandbox on
    expect(sandboxed.captured[0]!.payload!.permission_mode).toBe('bypassPermissions');
  });
});
