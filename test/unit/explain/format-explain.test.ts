import { describe, expect, it } from 'vitest';
import type { Explanation } from '../../../src/explain/explain-event.js';
import { formatExplanation } from '../../../src/explain/format-explain.js';

const explanation: Explanation = {
  event: {
    name: 'PreToolUse',
    agent: 'droid',
    agentFrom: 'built',
    sessionId: 's1',
    cwd: '/p',
    matcher: { field: 'tool_name', value: 'Execute' },
  },
  config: {
    files: [
      { level: 'user', file: '/c/config.json', exists: true, ok: true, issues: [] },
      {
        level: 'project',
        file: '/p/.hookd/config.json',
        exists: true,
        ok: false,
        issues: [{ file: '/p/.hookd/config.json', path: 'hooks', message: 'bad', fix: 'fix it' }],
      },
    ],
  },
  commands: {
    run: [{ name: 'guard', command: './guard.sh', timeoutMs: 5000, blocking: true, context: false }],
    notRun: [
      { entry: 1, reason: 'matcher "Create" does not match tool_name "Execute"', commands: ['on-create'] },
    ],
    disabled: ['parked'],
  },
  notifications: {
    builtInRules: false,
    fire: [
      {
        rule: 'tools',
        index: 0,
        channels: ['team'],
        title: 'p: Execute',
        body: 'rm -rf',
        urgency: 'normal',
        heldUntil: '2026-11-24T07:00:00.000Z',
        coalesced: false,
        channelProblems: ['team: SLACK_WEBHOOK_URL not set here, so it cannot deliver'],
      },
    ],
    notFire: [{ rule: 'edits', index: 1, reason: 'filter: tool Execute does not match Edit' }],
    noiseState: { consulted: false, note: 'cooldown/dedupe state not consulted: daemon not running' },
  },
  notes: ['texts are shown without enrichment (session title, last message, tokens)'],
};

describe('formatExplanation', () => {
  it('reads as what would run, what would notify, and why not, without colour', () => {
    expect(formatExplanation(explanation, { color: false })).toBe(
      [
        'PreToolUse  tool_name "Execute"  agent droid  session s1  cwd /p',
        'config /c/config.json (user)',
        'config /p/.hookd/config.json (project) is invalid and ignored:',
        '  hooks: bad (fix: fix it)',
        '',
        'Commands: 1 would run',
        '  ▸ guard  "./guard.sh"  timeout 5.0s  [blocking]',
        '  - entry 1 (on-create) not run: matcher "Create" does not match tool_name "Execute"',
        '  - parked not run: disabled (enabled: false)',
        '',
        'Notifications: 1 rule would fire',
        '  ▸ tools → team  "p: Execute"  held by quiet hours until 2026-11-24T07:00:00.000Z, then sent in a digest',
        '      "rm -rf"',
        '      ! team: SLACK_WEBHOOK_URL not set here, so it cannot deliver',
        '  - edits would not fire: filter: tool Execute does not match Edit',
        '  cooldown/dedupe state not consulted: daemon not running',
        '',
        'note: texts are shown without enrichment (session title, last message, tokens)',
        '',
      ].join('\n'),
    );
  });

  it('says when an event has no entries at all', () => {
    const none = { ...explanation, commands: { run: [], notRun: [], disabled: [] } };
    expect(formatExplanation(none, { color: false })).toContain('  no entries for PreToolUse under hooks');
  });
});
