import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENT_IDS, type AgentId } from '../../../src/agents/ids.js';
import { notifySettings } from '../../../src/config/schemas/notify-schema.js';
import { validateConfigObject } from '../../../src/config/validate.js';
import { parseEvent } from '../../../src/events/parse.js';
import { eventsToWire } from '../../../src/install/wiring.js';
import { evaluateRules } from '../../../src/notify/rules.js';
import { createNoiseState } from '../../../src/notify/noise.js';
import { REPO_DIR } from '../../helpers/fixtures.js';

// A config that says nothing about notifications notifies for every agent hookd installs: the default
// rules' events are wired in each agent's own words, and each agent's recorded end of a turn and its
// "needs you" event fire them.

const FIXTURES = join(REPO_DIR, 'test', 'fixtures');
const recorded = (path: string) =>
  JSON.parse(readFileSync(join(FIXTURES, path), 'utf8')) as Record<string, unknown>;

/** Each agent's recorded end of a turn (Gemini's is AfterAgent). */
const TURN_END: Record<AgentId, string> = {
  droid: 'droid-0.225.2/exec/09-Stop.json',
  claude: 'claude-code-2.1.330/auto/07-Stop.json',
  codex: 'codex-0.171.0/05-Stop.json',
  gemini: 'gemini-cli-0.61.0/13-AfterAgent.json',
  copilot: 'copilot-1.0.102/claude-dialect/12-Stop.json',
};

/** The event each agent sends when it waits for a person, and the agent's own name for it. */
const NEEDS_YOU: Record<AgentId, { native: string; payload: Record<string, unknown> }> = {
  droid: { native: 'Notification', payload: recorded('droid-0.225.2/jsonrpc/04-Notification.json') },
  claude: {
    native: 'PermissionRequest',
    payload: recorded('claude-code-2.1.330-permission/permission-request.json'),
  },
  // Not seen in the recorded runs: Codex's PermissionRequest in the shape of its other tool events.
  codex: {
    native: 'PermissionRequest',
    payload: {
      ...recorded('codex-0.171.0/03-PreToolUse-Bash.json'),
      hook_event_name: 'PermissionRequest',
    },
  },
  // Not seen in the recorded runs: Gemini's documented Notification (notification_type ToolPermission).
  gemini: {
    native: 'Notification',
    payload: {
      ...recorded('gemini-cli-0.61.0/13-AfterAgent.json'),
      hook_event_name: 'Notification',
      notification_type: 'ToolPermission',
      message: 'Tool run_shell_command needs permission',
      details: { tool_name: 'run_shell_command' },
    },
  },
  // Not seen in the recorded runs: Copilot's Notification in Claude Code's shape, which its hooks use.
  copilot: {
    native: 'Notification',
    payload: {
      ...recorded('copilot-1.0.102/claude-dialect/12-Stop.json'),
      hook_event_name: 'Notification',
      notification_type: 'permission_prompt',
      message: 'Copilot needs your permission to use Bash',
    },
  },
};

function defaults() {
  const result = validateConfigObject({}, 'config.json');
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.config;
}

function fired(payload: Record<string, unknown>, agent: AgentId): string[] {
  const parsed = parseEvent(JSON.stringify(payload), {}, undefined, agent);
  if (!parsed.ok) throw new Error(parsed.detail);
  const now = parsed.event.receivedAt;
  return evaluateRules(parsed.event, {}, notifySettings({}), createNoiseState(), now).fired.map(
    (f) => f.rule,
  );
}

describe('the default notifications, for every agent', () => {
  it.each(AGENT_IDS)('%s: install wires the end of a turn and the "needs you" event for them', (agent) => {
    const wired = eventsToWire(defaults(), agent);
    const forRules = wired.filter((w) => w.reasons.includes('rules')).map((w) => w.event);
    const turnEnd = recorded(TURN_END[agent]).hook_event_name as string;
    expect(forRules).toContain(turnEnd);
    expect(forRules).toContain(NEEDS_YOU[agent].native);
  });

  it.each(AGENT_IDS)("%s: the recorded end of a turn fires 'default: finished'", (agent) => {
    expect(fired(recorded(TURN_END[agent]), agent)).toEqual(['default: finished']);
  });

  it.each(AGENT_IDS)("%s: waiting for a person fires 'default: needs you'", (agent) => {
    expect(fired(NEEDS_YOU[agent].payload, agent)).toEqual(['default: needs you']);
  });
});
