import { describe, expect, it } from 'vitest';
import {
  backgroundTasksRunning,
  failureOf,
  isCompactionFork,
  isHumanPrompt,
  isSubagentEvent,
  permissionTool,
  promptOrigin,
  subagentOf,
} from '../../../src/events/claude-facts.js';
import { CLAUDE_SCENARIOS, recordedClaudeEvents } from '../../helpers/claude-recorded.js';

describe('Claude event facts over every recorded Claude Code 2.1.330 payload', () => {
  const all = CLAUDE_SCENARIOS.flatMap((scenario) =>
    recordedClaudeEvents(scenario).map((r) => ({ ...r, scenario })),
  );

  it('a sub-agent event is exactly one that carries agent_id (beside the parent session_id)', () => {
    const sub = all.filter((r) => isSubagentEvent(r.event)).map((r) => `${r.scenario}/${r.file}`);
    expect(sub).toEqual(
      all.filter((r) => typeof r.event.payload.agent_id === 'string').map((r) => `${r.scenario}/${r.file}`),
    );
    expect(sub).toEqual([
      'extras/26-SubagentStart-general_purpose.json',
      'extras/27-SubagentStop-general_purpose.json',
      'print/10-SubagentStart-general_purpose.json',
      'print/11-SubagentStop-general_purpose.json',
      'stream/12-SubagentStart-general_purpose.json',
      'stream/13-SubagentStop-general_purpose.json',
      'stream/19-SubagentStop.json',
      'stream/20-SubagentStop.json',
      'tui/13-SubagentStart-general_purpose.json',
      'tui/15-SubagentStop-general_purpose.json',
      'tui/23-SubagentStop.json',
      'tui/24-SubagentStop.json',
    ]);
    // Every sub-agent event names the parent's session.
    for (const r of all.filter((x) => isSubagentEvent(x.event)))
      expect(r.event.sessionId).toBe(all.find((x) => x.scenario === r.scenario)!.event.sessionId);
    expect(subagentOf(all.find((r) => r.file.startsWith('12-SubagentStart'))!.event)).toEqual({
      agentId: 'a705158c88d3ccfa8',
      agentType: 'general-purpose',
    });
  });

  it("the compaction's SubagentStops (empty agent_type, after PreCompact) are forks, not sub-agents", () => {
    const forks = all.filter((r) => isCompactionFork(r.event)).map((r) => `${r.scenario}/${r.file}`);
    expect(forks).toEqual([
      'stream/19-SubagentStop.json',
      'stream/20-SubagentStop.json',
      'tui/23-SubagentStop.json',
      'tui/24-SubagentStop.json',
    ]);
  });

  it('the <task-notification> UserPromptSubmit of the TUI run did not come from a person; the others did', () => {
    const prompts = all.filter((r) => r.event.name === 'UserPromptSubmit');
    expect(prompts.map((r) => `${r.scenario}/${r.file}:${promptOrigin(r.event)}`)).toEqual([
      'auto/02-UserPromptSubmit.json:person',
      'extras/04-UserPromptSubmit.json:person',
      'extras/32-UserPromptSubmit.json:person',
      'extras/39-UserPromptSubmit.json:person',
      'extras/42-UserPromptSubmit.json:person',
      'print/02-UserPromptSubmit.json:person',
      'stream/02-UserPromptSubmit.json:person',
      'tui/02-UserPromptSubmit.json:person',
      'tui/18-UserPromptSubmit.json:task-notification',
    ]);
    expect(prompts.filter((r) => isHumanPrompt(r.event))).toHaveLength(8);
    expect(all.filter((r) => r.event.name !== 'UserPromptSubmit').some((r) => isHumanPrompt(r.event))).toBe(
      false,
    );
  });

  it('only the TUI Stop that left the background sub-agent running reports running background tasks', () => {
    const paused = all.filter((r) => backgroundTasksRunning(r.event).length > 0);
    expect(paused.map((r) => `${r.scenario}/${r.file}`)).toEqual(['tui/17-Stop.json']);
    expect(backgroundTasksRunning(paused[0]!.event)).toEqual([
      { id: 'a2196eb91573ad197', type: 'subagent', status: 'running', description: 'Tiny sub task' },
    ]);
    const done = { name: 'Stop', payload: { background_tasks: [{ id: 'x', status: 'completed' }] } };
    expect(backgroundTasksRunning(done)).toEqual([]);
  });

  it('StopFailure is the one failure, with its error kind and the API error message', () => {
    const failed = all.filter((r) => failureOf(r.event));
    expect(failed.map((r) => `${r.scenario}/${r.file}`)).toEqual(['extras/41-StopFailure-unknown.json']);
    expect(failureOf(failed[0]!.event)).toEqual({
      error: 'unknown',
      message: 'API Error: 400 fake-model-server: scripted error',
    });
  });

  it('names the tool of a permission ask when the payload or the message does', () => {
    const asks = all
      .filter(
        (r) =>
          r.event.name === 'PermissionRequest' || r.event.payload.notification_type === 'permission_prompt',
      )
      .map((r) => `${r.scenario}/${r.file}:${permissionTool(r.event) ?? '(none)'}`);
    expect(asks).toEqual([
      'stream/07-PermissionRequest-Write.json:Write',
      'stream/08-Notification-permission_prompt.json:Write',
      'tui/07-PermissionRequest-Write.json:Write',
      // The interactive UI's message does not name the tool.
      'tui/08-Notification-permission_prompt.json:(none)',
    ]);
  });
});
