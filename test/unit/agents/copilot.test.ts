import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAgentId } from '../../../src/agents/ids.js';
import { ADAPTERS } from '../../../src/agents/adapters/registry.js';
import { parseEvent } from '../../../src/events/parse.js';
import { locateSettingsFile } from '../../../src/install/agents.js';

// Every payload the real Copilot CLI 1.0.102 sent to hooks keyed by Claude Code's event names
// (test/fixtures/copilot-1.0.102/claude-dialect), with the environment it gave them: hookd tells the
// agent from it although Copilot also sets CLAUDE_PROJECT_DIR.

const DIR = join(import.meta.dirname, '../../fixtures/copilot-1.0.102/claude-dialect');
const HOOK_ENV = JSON.parse(readFileSync(join(DIR, 'hook-env.json'), 'utf8')) as Record<string, string>;
const recorded = readdirSync(DIR)
  .filter((f) => /^\d\d-.*\.json$/.test(f))
  .map((f) => [f, readFileSync(join(DIR, f))] as const);
const claudeShaped = recorded.filter(([, raw]) => 'hook_event_name' in JSON.parse(raw.toString()));

describe('Copilot CLI payloads', () => {
  it('is an agent hookd knows', () => {
    expect(isAgentId('copilot')).toBe(true);
  });

  it.each(claudeShaped)('%s is a Copilot event under its Claude Code name', (_file, raw) => {
    const payload = JSON.parse(raw.toString()) as Record<string, unknown>;
    const parsed = parseEvent(raw, HOOK_ENV);
    expect(parsed.ok && parsed.event).toMatchObject({
      agent: 'copilot',
      name: payload.hook_event_name,
      sessionId: payload.session_id,
      projectDir: HOOK_ENV.COPILOT_PROJECT_DIR,
    });
  });

  it('its Stop names its event log, which tells Copilot even without its variables', () => {
    const [, raw] = claudeShaped.find(([f]) => f.endsWith('-Stop.json'))!;
    const parsed = parseEvent(raw, { FACTORY_PROJECT_DIR: '/elsewhere', CLAUDE_PROJECT_DIR: '/elsewhere' });
    expect(parsed.ok && parsed.event.agent).toBe('copilot');
    expect(ADAPTERS.copilot.sessions.ownsTranscript(String(JSON.parse(raw.toString()).transcript_path))).toBe(
      true,
    );
  });
});

describe('the Copilot CLI adapter', () => {
  it('wires hookd.json in the user hooks folder ($COPILOT_HOME) or the project .github/hooks', () => {
    const env = { HOME: '/home/ada' };
    expect(locateSettingsFile({ agent: 'copilot', scope: 'user', env }).file).toBe(
      '/home/ada/.copilot/hooks/hookd.json',
    );
    expect(
      locateSettingsFile({ agent: 'copilot', scope: 'user', env: { ...env, COPILOT_HOME: '/c' } }).file,
    ).toBe('/c/hooks/hookd.json');
    expect(
      locateSettingsFile({ agent: 'copilot', scope: 'project', env, projectDir: '/work/repo' }).file,
    ).toBe('/work/repo/.github/hooks/hookd.json');
  });

  it('answers a deny as JSON, since the model never sees the stderr of an exit 2', () => {
    expect(ADAPTERS.copilot.reply.blockReason).toBe('json');
    expect(ADAPTERS.copilot.install.timeouts).toMatchObject({ unit: 's', agentDefault: 30 });
  });
});
