import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithAgent } from '../harness/availability.js';
import { functionResponses } from '../harness/gemini/fake-gemini.js';
import {
  GEMINI_EVENTS,
  geminiCaptureHooks,
  runGemini,
  type GeminiRun,
} from '../harness/gemini/run-gemini.js';
import { makeTempDir } from '../helpers/temp.js';

// The facts of Gemini CLI 0.61.0's hooks that hookd relies on, observed with the real CLI offline
// (`gemini -p`, yolo mode, against the scripted fake Gemini API) and plain recording hooks (no hookd):
// the events of one shell call and the end of the turn, how BeforeTool blocks and what the model then
// sees, what a hook's non-JSON stdout does, and timeouts in milliseconds.

const SHELL = 'echo hi > ran.txt; echo hi';
const SCRIPT = [{ shell: SHELL }, { text: 'Finished.' }];
const PROMPT = 'Run echo hi, then report back.';
const ONE_SHELL_CALL = [
  'SessionStart',
  'BeforeAgent',
  'PreCompress',
  'BeforeModel',
  'BeforeToolSelection',
  'AfterModel',
  'BeforeTool',
  'AfterTool',
  'PreCompress',
  'BeforeModel',
  'BeforeToolSelection',
  'AfterModel',
  'AfterAgent',
  'SessionEnd',
];

const temps: { cleanup: () => void }[] = [];
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
let session: GeminiRun;
let exit2: GeminiRun;
let jsonDeny: GeminiRun;
let notJson: GeminiRun;

function tempDir(): string {
  const t = makeTempDir('hkgm-');
  temps.push(t);
  return t.dir;
}

const labels = (run: GeminiRun) => run.captured.map((c) => c.label);
const lastResponses = (run: GeminiRun) => functionResponses(run.requests.at(-1)!.body);

describeWithAgent('gemini', 'the hooks of the real Gemini CLI 0.61.0', (entry) => {
  beforeAll(async () => {
    const base = { entry, script: SCRIPT, prompt: PROMPT, env };
    const dir = tempDir();
    // Every event wired, plus a SessionStart hook that never ends on its own (timeout 1000 ms)
    const hooks = geminiCaptureHooks(GEMINI_EVENTS, join(dir, 'out', 'capture-spec.json')) as Record<
      string,
      { hooks: unknown[] }[]
    >;
    hooks.SessionStart![0]!.hooks.push({
      type: 'command',
      name: 'hang',
      command: 'sleep 600',
      timeout: 1000,
    });
    session = await runGemini({ ...base, dir, hooks });
    const answer = (answers: Record<string, { stdout?: string; stderr?: string; exit?: number }>) => ({
      ...base,
      dir: tempDir(),
      events: GEMINI_EVENTS,
      capture: { answers },
    });
    exit2 = await runGemini(answer({ BeforeTool: { exit: 2, stderr: 'denied by exit 2' } }));
    jsonDeny = await runGemini(
      answer({ BeforeTool: { stdout: JSON.stringify({ decision: 'deny', reason: 'denied by JSON' }) } }),
    );
    notJson = await runGemini(answer({ BeforeTool: { stdout: 'not json at all' } }));
  });

  afterAll(() => {
    for (const t of temps) t.cleanup();
  });

  it('runs isolated and ends on its own', () => {
    for (const run of [session, exit2, jsonDeny, notJson]) {
      expect(run.isolated || process.getuid?.() !== 0).toBe(true);
      expect(run.result).toMatchObject({ code: 0, timedOut: false });
    }
  });

  it('fires these events for one shell call and the end of the turn', () => {
    expect(labels(session)).toEqual(ONE_SHELL_CALL);
    for (const c of session.captured) {
      expect(c.payload!.hook_event_name).toBe(c.label);
      expect(c.payload!.cwd).toBe(session.work);
      expect(String(c.payload!.transcript_path)).toMatch(
        new RegExp(`^${session.home}/\\.gemini/tmp/[^/]+/chats/session-.*\\.jsonl$`),
      );
    }
    const byEvent = Object.fromEntries(session.captured.map((c) => [c.label, c.payload!]));
    expect(byEvent.SessionStart).toMatchObject({ source: 'startup' });
    expect(byEvent.BeforeAgent).toMatchObject({ prompt: PROMPT });
    expect(byEvent.BeforeTool).toMatchObject({
      tool_name: 'run_shell_command',
      tool_input: { command: SHELL },
    });
    expect(byEvent.AfterTool).toMatchObject({ tool_name: 'run_shell_command' });
    expect(byEvent.AfterAgent).toMatchObject({
      prompt: PROMPT,
      prompt_response: 'Finished.',
      stop_hook_active: false,
    });
    expect(byEvent.SessionEnd).toMatchObject({ reason: 'exit' });
  });

  it('adds GEMINI_* and CLAUDE_PROJECT_DIR to the hook environment', () => {
    const hookEnv = session.captured[0]!.env;
    expect(hookEnv).toMatchObject({
      GEMINI_PROJECT_DIR: session.work,
      GEMINI_CWD: session.work,
      CLAUDE_PROJECT_DIR: session.work,
      GEMINI_SESSION_ID: session.captured[0]!.payload!.session_id,
    });
  });

  it('abandons a hook at its timeout (milliseconds) and goes on', () => {
    expect(readFileSync(join(session.work, 'ran.txt'), 'utf8')).toBe('hi\n');
  });

  it('blocks a shell command on BeforeTool exit 2; the model sees the stderr reason', () => {
    expect(existsSync(join(exit2.work, 'ran.txt'))).toBe(false);
    expect(labels(exit2)).not.toContain('AfterTool');
    expect(lastResponses(exit2)).toEqual([{ error: 'Tool execution blocked: denied by exit 2' }]);
    expect(exit2.stderr).toContain('[WARNING] Hook(s) [capture-BeforeTool] failed for event BeforeTool');
  });

  it('blocks a shell command on stdout {"decision":"deny"}; the model sees the reason', () => {
    expect(existsSync(join(jsonDeny.work, 'ran.txt'))).toBe(false);
    expect(lastResponses(jsonDeny)).toEqual([{ error: 'Tool execution blocked: denied by JSON' }]);
  });

  it('takes a non-JSON stdout as a message for the user: no block, the model never sees it', () => {
    expect(readFileSync(join(notJson.work, 'ran.txt'), 'utf8')).toBe('hi\n');
    expect(notJson.stderr).toContain('Hook system message: not json at all');
    expect(JSON.stringify(notJson.requests)).not.toContain('not json at all');
  });
});
