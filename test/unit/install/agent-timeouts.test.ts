import { describe, expect, it } from 'vitest';
import { DAEMON_DEFAULTS } from '../../../src/config/schemas/daemon-schema.js';
import { DEFAULTS } from '../../../src/config/defaults.js';
import { AGENT_PROFILES } from '../../../src/install/agents.js';

// hookd answers before the agent gives up on it: its event budget, the kill grace of the last command
// and the hand-off to the daemon fit inside the timeout `hookd install` writes. Claude Code's own default
// is 600 s, but SessionEnd gets 1.5 s unless an entry sets a timeout (then the largest, capped at 60 s):
// install writes 60 s on every entry (docs/install.md).
describe('agent-side timeouts written by install', () => {
  it.each(['droid', 'claude'] as const)('%s: hookd finishes within the timeout install writes', (agent) => {
    const hookdMs = DEFAULTS.eventBudgetSec * 1000 + DEFAULTS.killGraceMs + DAEMON_DEFAULTS.handoffTimeoutMs;
    expect(hookdMs).toBeLessThan(AGENT_PROFILES[agent].defaultTimeoutSec * 1000);
  });

  it("claude: the timeout is at most Claude's 60 s SessionEnd cap, so SessionEnd gets all of it", () => {
    expect(AGENT_PROFILES.claude.defaultTimeoutSec).toBeLessThanOrEqual(60);
    expect(AGENT_PROFILES.claude.defaultTimeoutSec).toBeGreaterThan(1.5);
  });
});
