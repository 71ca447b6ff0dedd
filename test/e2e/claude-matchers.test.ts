import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithAgent } from '../harness/availability.js';
import type { ClaudeRun } from '../harness/claude/run-claude.js';
import { claudeTestbed, type ClaudeTestbed } from '../harness/claude/testbed.js';

// hookd reads a `matcher` as Claude Code does, checked against the real Claude Code 2.1.330: the same
// matchers sit in Claude's own settings and in hookd's config, one recording command each, and one
// session shows which of them each side ran (PreToolUse on `Bash`; SubagentStart on `general-purpose`).

const MATCHERS: Record<string, string[]> = {
  PreToolUse: [
    'Bash',
    'Bas',
    'bash',
    'Bash|Nope',
    'Bash,Write',
    'Write, Bash',
    'ash|Nope',
    'B.s',
    '^Bash$',
    'Ba.*|Write',
    '*',
    '',
  ],
  SubagentStart: [
    'general-purpose',
    'general',
    'Explore,general-purpose',
    'gen.*',
    'general-purpose|Explore',
  ],
};

describeWithAgent('claude', 'matchers: hookd and the real Claude Code 2.1.330 agree', (bin) => {
  let bed: ClaudeTestbed;
  let run: ClaudeRun;
  const marks = () => join(bed.tmp.dir, 'marks.txt');
  const ran = (side: string, event: string) =>
    readFileSync(marks(), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith(`${side}:${event}:`))
      .map((l) => MATCHERS[event]![Number(l.split(':')[2])])
      .sort();

  beforeAll(async () => {
    bed = claudeTestbed('hkm-');
    await bed.install();
    const entries = (side: string, event: string) =>
      MATCHERS[event]!.map((matcher, i) => ({
        matcher,
        hooks: [{ type: 'command', command: `echo ${side}:${event}:${i} >> ${marks()}` }],
      }));
    writeFileSync(
      bed.env.HOOKD_CONFIG!,
      JSON.stringify({
        hooks: Object.fromEntries(Object.keys(MATCHERS).map((e) => [e, entries('hookd', e)])),
      }),
    );
    const file = join(bed.home, '.claude', 'settings.json');
    const settings = JSON.parse(readFileSync(file, 'utf8')) as { hooks: Record<string, unknown[]> };
    for (const event of Object.keys(MATCHERS)) settings.hooks[event]!.push(...entries('claude', event));
    writeFileSync(file, JSON.stringify(settings, null, 2));
    run = await bed.run(bin, {
      out: 'run',
      mode: 'print',
      env: bed.env,
      prompt: 'Run echo hi, then ask a sub-agent.',
      script: [
        { bash: 'echo hi' },
        { agent: { description: 'Tiny sub task', reply: 'fine' } },
        { text: 'Done.' },
      ],
    });
  });

  afterAll(() => bed?.tmp.cleanup());

  it.each(Object.keys(MATCHERS))('%s: hookd ran exactly the entries Claude Code ran', (event) => {
    expect(run.result).toMatchObject({ code: 0, timedOut: false });
    expect(run.debugLog).not.toContain('Invalid setting skipped');
    const claude = ran('claude', event);
    expect(claude.length).toBeGreaterThan(0);
    expect(ran('hookd', event)).toEqual(claude);
  });
});
