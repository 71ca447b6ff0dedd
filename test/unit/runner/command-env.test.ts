import { describe, expect, it } from 'vitest';
import { parseEvent } from '../../../src/events/parse.js';
import { commandEnv, expandVars } from '../../../src/runner/command-env.js';
import { fixture } from '../../helpers/fixtures.js';

describe('commandEnv', () => {
  it('exports every top-level scalar field under its own name, not objects, plus HOOKD_* and configured env', () => {
    const parsed = parseEvent(JSON.stringify(fixture('jsonrpc/05-PostToolUse-Execute.json')), {
      FACTORY_PROJECT_DIR: '/home/dev/projects/demo',
    });
    if (!parsed.ok) throw new Error('parse');
    const env = commandEnv(
      parsed.event,
      { PATH: '/bin', SECRET_TOKEN: 'abc' },
      { commandName: 'fmt', configured: { GREETING: 'hi ${SECRET_TOKEN}', EMPTY: '${NOPE:-fallback}' } },
    );
    expect(env.hook_event_name).toBe('PostToolUse');
    expect(env.session_id).toBe('48e23316-6280-4a11-966d-13493854823f');
    expect(env.tool_name).toBe('Execute');
    expect(env.permission_mode).toBe('off');
    expect(env.tool_input).toBeUndefined();
    expect(env.PATH).toBe('/bin');
    expect(env.FACTORY_PROJECT_DIR).toBe('/home/dev/projects/demo');
    expect(env.CLAUDE_PROJECT_DIR).toBe('/home/dev/projects/demo');
    expect(env.HOOKD_EVENT).toBe('PostToolUse');
    expect(env.HOOKD_COMMAND_NAME).toBe('fmt');
    expect(env.HOOKD_EVENT_ID).toBe(parsed.event.id);
    expect(env.HOOKD_DEPTH).toBe('1');
    expect(env.GREETING).toBe('hi abc');
    expect(env.EMPTY).toBe('fallback');
  });

  it('exports numbers and booleans as strings', () => {
    const parsed = parseEvent(JSON.stringify(fixture('jsonrpc/16-Stop.json')), {});
    if (!parsed.ok) throw new Error('parse');
    const env = commandEnv(parsed.event, {}, { commandName: 'x' });
    expect(env.stop_hook_active).toBe('false');
    expect(env.elapsed_time).toBe('1207');
  });

  it('expands ${VAR} and ${VAR:-default} only', () => {
    expect(expandVars('a ${X} $Y ${Z:-z}', { X: '1', Y: '2' })).toBe('a 1 $Y z');
  });
});
