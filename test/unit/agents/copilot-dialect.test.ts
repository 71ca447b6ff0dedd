import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateConfigObject } from '../../../src/config/validate.js';
import { parseEvent } from '../../../src/events/parse.js';
import { planCommands } from '../../../src/runner/route.js';
import { REPO_DIR } from '../../helpers/fixtures.js';

// Copilot CLI 1.0.102 sends a hooks file keyed by its own camelCase names payloads of another shape
// (test/fixtures/copilot-1.0.102/copilot-dialect): hookd reads them as the events Copilot sends in
// Claude Code's dialect. The create and edit calls were recorded in both dialects in one session.

const FIXTURES = join(REPO_DIR, 'test', 'fixtures', 'copilot-1.0.102');
const raw = (path: string) => readFileSync(join(FIXTURES, path), 'utf8');

function parsed(path: string, env: Record<string, string> = {}) {
  const result = parseEvent(raw(path), env, undefined, 'copilot');
  if (!result.ok) throw new Error(result.detail);
  return result.event;
}

describe("Copilot CLI's own hook dialect", () => {
  it.each([
    ['copilot-dialect/09-preToolUse-create.json', 'tools/07-PreToolUse-Write.json'],
    ['copilot-dialect/10-postToolUse-create.json', 'tools/08-PostToolUse-Write.json'],
    ['copilot-dialect/11-preToolUse-edit.json', 'tools/09-PreToolUse-Edit.json'],
    ['copilot-dialect/12-postToolUse-edit.json', 'tools/10-PostToolUse-Edit.json'],
  ])('%s is the event %s is', (own, claude) => {
    const a = parsed(own);
    const b = parsed(claude);
    expect(a).toMatchObject({ name: b.name, agent: 'copilot', sessionId: b.sessionId, cwd: b.cwd });
    for (const field of ['tool_name', 'tool_input', 'tool_result', 'session_id'])
      expect(a.payload[field], field).toEqual(b.payload[field]);
  });

  it.each([
    ['01-sessionStart.json', 'SessionStart'],
    ['02-userPromptSubmitted.json', 'UserPromptSubmit'],
    ['03-userPromptTransformed.json', 'userPromptTransformed'],
    ['04-preToolUse-bash.json', 'PreToolUse'],
    ['05-permissionRequest-bash.json', 'PermissionRequest'],
    ['06-postToolUse-bash.json', 'PostToolUse'],
    ['07-agentStop.json', 'Stop'],
    ['08-sessionEnd.json', 'SessionEnd'],
  ])('%s, which names no event, is a %s', (file, name) => {
    const event = parsed(`copilot-dialect/${file}`);
    expect(event.name).toBe(name);
    expect(event.sessionId).toBe('de37c165-955b-4814-9cf4-56a3e2a00ef1');
  });

  it("takes the model's tool names as Copilot's Claude-dialect hooks name them, and keeps Copilot's fields", () => {
    const pre = parsed('copilot-dialect/04-preToolUse-bash.json');
    expect(pre.payload).toMatchObject({
      toolName: 'bash',
      toolArgs: { command: 'echo hi' },
      tool_name: 'Bash',
      tool_input: { command: 'echo hi' },
    });
    expect(parsed('copilot-dialect/06-postToolUse-bash.json').payload.tool_result).toMatchObject({
      result_type: 'success',
      text_result_for_llm: 'hi\n<shellId: 0 completed with exit code 0>',
    });
    const stop = parsed('copilot-dialect/07-agentStop.json');
    expect(stop.transcriptPath).toBe(
      '/home/dev/.copilot/session-state/de37c165-955b-4814-9cf4-56a3e2a00ef1/events.jsonl',
    );
    expect(stop.payload.stop_reason).toBe('end_turn');
  });

  it('is told by the environment too, when the command names no agent', () => {
    const result = parseEvent(raw('copilot-dialect/11-preToolUse-edit.json'), { COPILOT_CLI: '1' });
    expect(result.ok && result.event).toMatchObject({ agent: 'copilot', name: 'PreToolUse' });
  });

  it("leaves a payload in Claude Code's dialect, and another agent's camelCase payload, as they are", () => {
    const claude = JSON.parse(raw('tools/09-PreToolUse-Edit.json')) as Record<string, unknown>;
    expect(parsed('tools/09-PreToolUse-Edit.json').payload).toEqual(claude);
    const other = parseEvent(raw('copilot-dialect/04-preToolUse-bash.json'), {}, undefined, 'claude');
    expect(other.ok && other.event.payload.tool_name).toBeUndefined();
  });

  it('runs an edit guard for the recorded edit call, and a write guard for the create call', () => {
    const result = validateConfigObject(
      {
        hooks: {
          PreToolUse: ['edit', 'write', 'shell'].map((kind) => ({
            kinds: [kind],
            hooks: [{ type: 'command', command: `guard-${kind}` }],
          })),
        },
      },
      'test.json',
    );
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    const ran = (file: string) =>
      planCommands(parsed(`copilot-dialect/${file}`), result.config).commands.map((c) => c.spec.command);
    expect(ran('11-preToolUse-edit.json')).toEqual(['guard-edit']);
    expect(ran('09-preToolUse-create.json')).toEqual(['guard-write']);
    expect(ran('04-preToolUse-bash.json')).toEqual(['guard-shell']);
  });
});
