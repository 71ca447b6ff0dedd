import { describe, expect, it } from 'vitest';
import { parseEvent } from '../../../src/events/parse.js';
import type { HookEvent } from '../../../src/events/types.js';
import {
  nextSessionState,
  observeSession,
  parseSessionState,
  pruneSessions,
  stopAsksUser,
  userMovedOn,
  type SessionTable,
} from '../../../src/notify/session-state.js';
import { CLAUDE_SCENARIOS, recordedClaudeEvents } from '../../helpers/claude-recorded.js';
import { droidFixtures, REPO_DIR } from '../../helpers/fixtures.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One line per event: `file: session-kind transition -> phase[(why)]`. */
function trace(events: { file: string; event: HookEvent }[]): string[] {
  const table: SessionTable = new Map();
  const mains: string[] = [];
  return events.map(({ file, event }) => {
    const s = observeSession(table, event, event.receivedAt)!;
    if (!s.parent && !mains.includes(s.id)) mains.push(s.id);
    const who = s.parent ? (s.id.includes('#') ? 'sub' : 'droid-sub') : `main${mains.indexOf(s.id)}`;
    return `${file}: ${who} ${s.transition} -> ${s.phase}${s.waitingFor ? `(${s.waitingFor})` : ''}`;
  });
}

function droidEvents(mode: 'exec' | 'jsonrpc'): { file: string; event: HookEvent }[] {
  return droidFixtures()
    .filter((f) => f.mode === mode)
    .map((f, n) => {
      const parsed = parseEvent(f.raw, {}, { now: () => 1_000_000 + n * 1000, id: () => f.file }, 'droid');
      if (!parsed.ok) throw new Error(f.file);
      return { file: f.file.split('/')[1]!, event: parsed.event };
    });
}

describe('session states over the recorded real sessions (every scenario, every transition named)', () => {
  it('covers every recorded Claude scenario (each has its own case below)', () => {
    expect(CLAUDE_SCENARIOS).toEqual(['auto', 'extras', 'print', 'stream', 'tui']);
  });
  it('Claude Code 2.1.330 auto', () => {
    expect(trace(recordedClaudeEvents('auto'))).toMatchInlineSnapshot(`
      [
        "01-SessionStart-startup.json: main0 session-start -> starting",
        "02-UserPromptSubmit.json: main0 prompt -> working",
        "03-PreToolUse-Bash.json: main0 tool -> working",
        "04-PermissionDenied-Bash.json: main0 permission-denied -> working",
        "05-PostToolBatch.json: main0 activity -> working",
        "06-MessageDisplay.json: main0 activity -> working",
        "07-Stop.json: main0 stop -> done",
        "08-SessionEnd-other.json: main0 session-end -> ended",
      ]
    `);
  });
  it('Claude Code 2.1.330 extras', () => {
    expect(trace(recordedClaudeEvents('extras'))).toMatchInlineSnapshot(`
      [
        "01-InstructionsLoaded-session_start.json: main0 activity -> starting",
        "02-Setup-init.json: main0 activity -> starting",
        "03-SessionStart-startup.json: main0 session-start -> starting",
        "04-UserPromptSubmit.json: main0 prompt -> working",
        "05-PreToolUse-Bash.json: main0 tool -> working",
        "06-FileChanged-change.json: main0 activity -> working",
        "07-PostToolUse-Bash.json: main0 tool-result -> working",
        "08-PostToolBatch.json: main0 activity -> working",
        "09-PreToolUse-Bash.json: main0 tool -> working",
        "10-PostToolUse-Bash.json: main0 tool-result -> working",
        "11-CwdChanged.json: main0 activity -> working",
        "12-PostToolBatch.json: main0 activity -> working",
        "13-PreToolUse-Bash.json: main0 tool -> working",
        "14-PostToolUseFailure-Bash.json: main0 tool-result -> working",
        "15-PostToolBatch.json: main0 activity -> working",
        "16-PreToolUse-Bash.json: main0 tool -> working",
        "17-PostToolUse-Bash.json: main0 tool-result -> working",
        "18-CwdChanged.json: main0 activity -> working",
        "19-PostToolBatch.json: main0 activity -> working",
        "20-PreToolUse-Bash.json: main0 tool -> working",
        "21-ConfigChange-user_settings.json: main0 activity -> working",
        "22-PostToolUse-Bash.json: main0 tool-result -> working",
        "23-PostToolBatch.json: main0 activity -> working",
        "24-PreToolUse-Agent.json: main0 tool -> working",
        "25-WorktreeCreate.json: main0 activity -> working",
        "26-SubagentStart-general_purpose.json: sub subagent-start -> working",
        "27-SubagentStop-general_purpose.json: sub subagent-stop -> done",
        "28-PostToolUse-Agent.json: main0 tool-result -> working",
        "29-PostToolBatch.json: main0 activity -> working",
        "30-MessageDisplay.json: main0 activity -> working",
        "31-Stop.json: main0 stop -> done",
        "32-UserPromptSubmit.json: main0 prompt -> working",
        "33-UserPromptExpansion-slash_command.json: main0 prompt -> working",
        "34-MessageDisplay.json: main0 activity -> working",
        "35-Stop.json: main0 stop -> done",
        "36-PreModelSwitch-command.json: main0 activity -> done",
        "37-PostModelSwitch-command.json: main0 activity -> done",
        "38-DirectoryAdded-register_repo_root.json: main0 activity -> done",
        "39-UserPromptSubmit.json: main0 prompt -> working",
        "40-MessageDisplay.json: main0 activity -> working",
        "41-StopFailure-unknown.json: main0 stop-failure -> failed",
        "42-UserPromptSubmit.json: main0 prompt -> working",
        "43-MessageDisplay.json: main0 activity -> working",
        "44-Stop.json: main0 stop -> done",
        "45-SessionEnd-other.json: main0 session-end -> ended",
      ]
    `);
  });
  it('Claude Code 2.1.330 print', () => {
    expect(trace(recordedClaudeEvents('print'))).toMatchInlineSnapshot(`
      [
        "01-SessionStart-startup.json: main0 session-start -> starting",
        "02-UserPromptSubmit.json: main0 prompt -> working",
        "03-PreToolUse-Bash.json: main0 tool -> working",
        "04-PostToolUse-Bash.json: main0 tool-result -> working",
        "05-PostToolBatch.json: main0 activity -> working",
        "06-PreToolUse-Write.json: main0 tool -> working",
        "07-PostToolUse-Write.json: main0 tool-result -> working",
        "08-PostToolBatch.json: main0 activity -> working",
        "09-PreToolUse-Agent.json: main0 tool -> working",
        "10-SubagentStart-general_purpose.json: sub subagent-start -> working",
        "11-SubagentStop-general_purpose.json: sub subagent-stop -> done",
        "12-PostToolUse-Agent.json: main0 tool-result -> working",
        "13-PostToolBatch.json: main0 activity -> working",
        "14-MessageDisplay.json: main0 activity -> working",
        "15-Stop.json: main0 stop -> done",
        "16-SessionEnd-other.json: main0 session-end -> ended",
      ]
    `);
  });
  it('Claude Code 2.1.330 stream', () => {
    expect(trace(recordedClaudeEvents('stream'))).toMatchInlineSnapshot(`
      [
        "01-SessionStart-startup.json: main0 session-start -> starting",
        "02-UserPromptSubmit.json: main0 prompt -> working",
        "03-PreToolUse-Bash.json: main0 tool -> working",
        "04-PostToolUse-Bash.json: main0 tool-result -> working",
        "05-PostToolBatch.json: main0 activity -> working",
        "06-PreToolUse-Write.json: main0 tool -> working",
        "07-PermissionRequest-Write.json: main0 permission-ask -> waiting(permission)",
        "08-Notification-permission_prompt.json: main0 permission-ask -> waiting(permission)",
        "09-PostToolUse-Write.json: main0 tool-result -> working",
        "10-PostToolBatch.json: main0 activity -> working",
        "11-PreToolUse-Agent.json: main0 tool -> working",
        "12-SubagentStart-general_purpose.json: sub subagent-start -> working",
        "13-SubagentStop-general_purpose.json: sub subagent-stop -> done",
        "14-PostToolUse-Agent.json: main0 tool-result -> working",
        "15-PostToolBatch.json: main0 activity -> working",
        "16-MessageDisplay.json: main0 activity -> working",
        "17-Stop.json: main0 stop -> done",
        "18-PreCompact-manual.json: main0 compact -> working",
        "19-SubagentStop.json: main0 activity -> working",
        "20-SubagentStop.json: main0 activity -> working",
        "21-SessionStart-compact.json: main0 compact-restart -> working",
        "22-PostCompact-manual.json: main0 compacted -> done",
        "23-SessionEnd-other.json: main0 session-end -> ended",
      ]
    `);
  });
  it('Claude Code 2.1.330 tui', () => {
    expect(trace(recordedClaudeEvents('tui'))).toMatchInlineSnapshot(`
      [
        "01-SessionStart-startup.json: main0 session-start -> starting",
        "02-UserPromptSubmit.json: main0 prompt -> working",
        "03-PreToolUse-Bash.json: main0 tool -> working",
        "04-PostToolUse-Bash.json: main0 tool-result -> working",
        "05-PostToolBatch.json: main0 activity -> working",
        "06-PreToolUse-Write.json: main0 tool -> working",
        "07-PermissionRequest-Write.json: main0 permission-ask -> waiting(permission)",
        "08-Notification-permission_prompt.json: main0 permission-ask -> waiting(permission)",
        "09-PostToolUse-Write.json: main0 tool-result -> working",
        "10-PostToolBatch.json: main0 activity -> working",
        "11-PreToolUse-Agent.json: main0 tool -> working",
        "12-PostToolUse-Agent.json: main0 tool-result -> working",
        "13-SubagentStart-general_purpose.json: sub subagent-start -> working",
        "14-PostToolBatch.json: main0 activity -> working",
        "15-SubagentStop-general_purpose.json: sub subagent-stop -> done",
        "16-MessageDisplay.json: main0 activity -> working",
        "17-Stop.json: main0 stop-with-background-tasks -> working",
        "18-UserPromptSubmit.json: main0 task-notification -> working",
        "19-MessageDisplay.json: main0 activity -> working",
        "20-Stop.json: main0 stop -> done",
        "21-Notification-idle_prompt.json: main0 idle -> waiting(idle)",
        "22-PreCompact-manual.json: main0 compact -> working",
        "23-SubagentStop.json: main0 activity -> working",
        "24-SubagentStop.json: main0 activity -> working",
        "25-SessionStart-compact.json: main0 compact-restart -> working",
        "26-PostCompact-manual.json: main0 compacted -> waiting(idle)",
        "27-SessionEnd-prompt_input_exit.json: main0 session-end -> ended",
      ]
    `);
  });
  it('Droid 0.225.2 exec', () => {
    expect(trace(droidEvents('exec'))).toMatchInlineSnapshot(`
      [
        "01-SessionStart-startup.json: main0 session-start -> starting",
        "02-PreToolUse-Execute.json: main0 tool -> working",
        "03-PostToolUse-Execute.json: main0 tool-result -> working",
        "04-PreToolUse-Create.json: main0 tool -> working",
        "05-PostToolUse-Create.json: main0 tool-result -> working",
        "06-PreToolUse-Task.json: main0 tool -> working",
        "07-SessionStart-startup.json: droid-sub session-start -> starting",
        "08-UserPromptSubmit.json: droid-sub prompt -> working",
        "09-Stop.json: droid-sub stop -> done",
        "10-SessionEnd.json: droid-sub session-end -> ended",
        "11-SubagentStop.json: main0 subagent-finished -> working",
        "12-PostToolUse-Task.json: main0 tool-result -> working",
        "13-Stop.json: main0 stop -> done",
        "14-SessionEnd.json: main0 session-end -> ended",
      ]
    `);
  });
  it('Droid 0.225.2 jsonrpc', () => {
    expect(trace(droidEvents('jsonrpc'))).toMatchInlineSnapshot(`
      [
        "01-SessionStart-startup.json: main0 session-start -> starting",
        "02-UserPromptSubmit.json: main0 prompt -> working",
        "03-PreToolUse-Execute.json: main0 tool -> working",
        "04-Notification.json: main0 permission-ask -> waiting(permission)",
        "05-PostToolUse-Execute.json: main0 tool-result -> working",
        "06-PreToolUse-Create.json: main0 tool -> working",
        "07-Notification.json: main0 permission-ask -> waiting(permission)",
        "08-PostToolUse-Create.json: main0 tool-result -> working",
        "09-PreToolUse-Task.json: main0 tool -> working",
        "10-SessionStart-startup.json: droid-sub session-start -> starting",
        "11-UserPromptSubmit.json: droid-sub prompt -> working",
        "12-Stop.json: droid-sub stop -> done",
        "13-SessionEnd.json: droid-sub session-end -> ended",
        "14-SubagentStop.json: main0 subagent-finished -> working",
        "15-PostToolUse-Task.json: main0 tool-result -> working",
        "16-Stop.json: main0 stop -> done",
        "17-SessionStart-resume.json: main0 session-start -> starting",
        "18-PreCompact.json: main0 compact -> working",
        "19-SessionEnd.json: main0 session-end -> ended",
      ]
    `);
  });
});

/** A recorded event with its payload changed (the variants no recorded run produced). */
function variant(scenario: 'extras' | 'tui', prefix: string, payload: Record<string, unknown>): HookEvent {
  const r = recordedClaudeEvents(scenario).find((x) => x.file.startsWith(prefix))!;
  return { ...r.event, payload: { ...r.event.payload, ...payload } };
}

describe('session state transitions the recordings do not show', () => {
  const working = () => {
    const table: SessionTable = new Map();
    for (const r of recordedClaudeEvents('extras').slice(0, 5)) observeSession(table, r.event, 1);
    return table;
  };

  it('stop-asks: a Stop whose last message asks a question is waiting (question), not done', () => {
    const table = working();
    const ask = variant('extras', '31-Stop', { last_assistant_message: 'Should I also update the tests?' });
    expect(stopAsksUser(ask)).toBe(true);
    expect(observeSession(table, ask, 2)).toMatchObject({
      transition: 'stop-asks',
      phase: 'waiting',
      waitingFor: 'question',
      since: 2,
    });
    expect(stopAsksUser(variant('extras', '31-Stop', {}))).toBe(false);
    expect(
      stopAsksUser(
        variant('extras', '31-Stop', { last_assistant_message: 'Which one do you want? (a or b)' }),
      ),
    ).toBe(false);
    expect(
      stopAsksUser(variant('extras', '31-Stop', { last_assistant_message: 'Proceed with **option A?**' })),
    ).toBe(true);
  });

  it('interrupt: PostToolUseFailure with is_interrupt is interrupted; the next prompt works again', () => {
    const table = working();
    const s = observeSession(table, variant('extras', '14-PostToolUseFailure', { is_interrupt: true }), 2)!;
    expect(s).toMatchObject({ transition: 'interrupt', phase: 'interrupted', inTurn: false });
    expect(observeSession(table, variant('extras', '39-UserPromptSubmit', {}), 3)).toMatchObject({
      transition: 'prompt',
      phase: 'working',
    });
  });

  it("interrupt: Codex CLI's own Interrupt event is interrupted; the next prompt works again", () => {
    // Codex fires Interrupt when the user stops a turn (Esc in its TUI); `codex exec` never does, so its
    // payload is the recorded Stop's common fields under Interrupt's name.
    const codex = (file: string, fields: Record<string, unknown> = {}, n = 0): HookEvent => {
      const raw = JSON.parse(
        readFileSync(join(REPO_DIR, 'test', 'fixtures', 'codex-0.171.0', file), 'utf8'),
      ) as object;
      const parsed = parseEvent(
        JSON.stringify({ ...raw, ...fields }),
        {},
        { now: () => 2_000_000 + n, id: () => `${file}-${n}` },
        'codex',
      );
      if (!parsed.ok) throw new Error(file);
      return parsed.event;
    };
    const table: SessionTable = new Map();
    observeSession(table, codex('02-UserPromptSubmit.json'), 1);
    expect(observeSession(table, codex('03-PreToolUse-Bash.json'), 2)).toMatchObject({ phase: 'working' });
    const interrupt = codex('05-Stop.json', { hook_event_name: 'Interrupt' }, 3);
    delete interrupt.payload.stop_hook_active;
    delete interrupt.payload.last_assistant_message;
    expect(interrupt).toMatchObject({ agent: 'codex', name: 'Interrupt' });
    expect(observeSession(table, interrupt, 3)).toMatchObject({
      transition: 'interrupt',
      phase: 'interrupted',
      inTurn: false,
    });
    expect(observeSession(table, codex('02-UserPromptSubmit.json', {}, 4), 4)).toMatchObject({
      transition: 'prompt',
      phase: 'working',
    });
  });

  it('ended-mid-turn: a SessionEnd without a Stop is failed; stop-failure keeps the error kind', () => {
    const table = working();
    const end = observeSession(table, variant('extras', '45-SessionEnd', {}), 2)!;
    expect(end).toMatchObject({
      transition: 'ended-mid-turn',
      phase: 'failed',
      failure: 'session ended mid-turn',
    });
    const t2 = working();
    expect(observeSession(t2, variant('extras', '41-StopFailure', {}), 2)).toMatchObject({
      transition: 'stop-failure',
      phase: 'failed',
      failure: 'unknown',
    });
    expect(observeSession(t2, variant('extras', '45-SessionEnd', {}), 3)).toMatchObject({
      transition: 'session-end',
      phase: 'ended',
    });
  });

  it('question: an elicitation dialog is waiting (question) and its result moves on', () => {
    const table = working();
    expect(
      observeSession(
        table,
        variant('tui', '21-Notification', { notification_type: 'elicitation_dialog' }),
        2,
      ),
    ).toMatchObject({ transition: 'question', phase: 'waiting', waitingFor: 'question' });
  });

  it('the pure function: the same state and event give the same next state; the input is not changed', () => {
    const e = recordedClaudeEvents('print')[0]!.event;
    const s0 = nextSessionState(undefined, e, 5);
    const frozen = JSON.stringify(s0);
    const prompt = recordedClaudeEvents('print')[1]!.event;
    expect(nextSessionState(s0, prompt, 6)).toEqual(nextSessionState(s0, prompt, 6));
    expect(JSON.stringify(s0)).toBe(frozen);
  });

  it('what counts as the user answering, and what never does', () => {
    const tui = recordedClaudeEvents('tui');
    const by = (prefix: string) => tui.find((r) => r.file.startsWith(prefix))!.event;
    expect(userMovedOn(by('02-UserPromptSubmit'))).toBe(true);
    expect(userMovedOn(by('06-PreToolUse'))).toBe(true);
    expect(userMovedOn(by('09-PostToolUse-Write'))).toBe(true);
    // A <task-notification> prompt, a sub-agent event, a Stop-hook continuation, a Stop: never.
    expect(userMovedOn(by('18-UserPromptSubmit'))).toBe(false);
    expect(userMovedOn(by('15-SubagentStop'))).toBe(false);
    expect(
      userMovedOn({ ...by('06-PreToolUse'), payload: { ...by('06-PreToolUse').payload, agent_id: 'a1' } }),
    ).toBe(false);
    expect(
      userMovedOn({
        ...by('06-PreToolUse'),
        payload: { ...by('06-PreToolUse').payload, stop_hook_active: true },
      }),
    ).toBe(false);
    expect(userMovedOn(by('20-Stop'))).toBe(false);
    expect(userMovedOn(by('21-Notification'))).toBe(false);
  });

  it('ended sessions are dropped after a while, silent ones after the max age; a saved state is validated', () => {
    const table: SessionTable = new Map();
    const events = recordedClaudeEvents('print');
    for (const r of events) observeSession(table, r.event, 100);
    const live = working();
    const [key, state] = [...live][0]!;
    table.set(key, state);
    pruneSessions(table, 100 + 60_000, 30_000, 3_600_000);
    expect([...table.keys()]).toEqual([key]);
    pruneSessions(table, 1 + 3_600_001, 30_000, 3_600_000);
    expect(table.size).toBe(0);
    expect(parseSessionState(JSON.parse(JSON.stringify(state)))).toEqual(state);
    expect(parseSessionState({ ...state, phase: 'dancing' })).toBeUndefined();
    expect(parseSessionState({ ...state, since: 'x' })).toBeUndefined();
    expect(parseSessionState(null)).toBeUndefined();
  });
});
