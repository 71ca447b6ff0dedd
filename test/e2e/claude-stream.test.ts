import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWithAgent } from '../harness/availability.js';
import { CLAUDE_EVENTS } from '../../src/events/names.js';
import { runClaude, type ClaudeRun } from '../harness/claude/run-claude.js';
import { claudeTestbed, type Captured, type ClaudeTestbed } from '../harness/claude/testbed.js';

// hookd under the REAL Claude Code 2.1.330 in stream-json mode (the protocol of the Agent SDKs): one
// session in permission mode "default" whose Write needs a permission answered over stdio. The driver
// answers only once hookd's command has seen the Notification `permission_prompt` (Claude fires it when a
// prompt stays unanswered for about 6 s; the test waits for it, it never sleeps), then `/compact`, then
// stdin is closed (SessionEnd).

let bed: ClaudeTestbed;
let work: string;
let run: ClaudeRun;

const captured = () => bed.captured();
const payloadOf = (c: Captured) => bed.payloadOf(c);

describeWithAgent('claude', 'hookd under the real Claude Code 2.1.330 (stream-json mode)', (bin) => {
  beforeAll(async () => {
    bed = claudeTestbed('hks-');
    work = bed.work;
    await bed.install();
    const record = { hooks: [bed.recorder()] };
    const config = { hooks: Object.fromEntries(CLAUDE_EVENTS.map((e) => [e, [record]])) };
    writeFileSync(bed.env.HOOKD_CONFIG!, JSON.stringify(config));
    run = await runClaude({
      bin,
      home: bed.home,
      work,
      outDir: join(bed.tmp.dir, 'stream'),
      mode: 'stream',
      env: bed.env,
      permissionMode: 'default',
      permission: { behavior: 'allow', when: { file: bed.capture, contains: '"ev":"Notification"' } },
      prompt: 'Write hook-demo.txt, then report.',
      followups: ['/compact'],
      script: [
        { write: { path: 'hook-demo.txt', content: 'written after a late yes\n' } },
        { text: 'Written.' },
      ],
    });
  });

  afterAll(() => bed?.tmp.cleanup());

  describe('hookd under the real Claude Code 2.1.330, stream-json mode', () => {
    it('the session ran both turns and ended when stdin closed', () => {
      expect(run.result, run.stderr).toMatchObject({
        code: 0,
        timedOut: false,
        turns: ['success', 'success'],
      });
      expect(readFileSync(join(work, 'hook-demo.txt'), 'utf8')).toBe('written after a late yes\n');
    });

    it('a permission answered late: PermissionRequest, then the Notification permission_prompt, then the tool', () => {
      expect(run.result.permissions).toEqual([{ tool: 'Write', conditionMet: true }]);
      const order = captured().map(
        (c) => `${c.ev}:${String(payloadOf(c).tool_name ?? payloadOf(c).notification_type ?? '')}`,
      );
      const request = order.indexOf('PermissionRequest:Write');
      const notification = order.indexOf('Notification:permission_prompt');
      const post = order.indexOf('PostToolUse:Write');
      expect(request).toBeGreaterThanOrEqual(0);
      expect(notification).toBeGreaterThan(request);
      expect(post).toBeGreaterThan(notification);
      const note = payloadOf(captured()[notification]!);
      expect(note.message).toBe('Claude needs your permission to use Write');
    });

    it('/compact fires PreCompact, SessionStart(compact) and PostCompact, and they reach hookd', () => {
      const names = captured().map(
        (c) => `${c.ev}:${String(payloadOf(c).trigger ?? payloadOf(c).source ?? '')}`,
      );
      const pre = names.indexOf('PreCompact:manual');
      expect(pre).toBeGreaterThanOrEqual(0);
      expect(names.indexOf('SessionStart:compact')).toBeGreaterThan(pre);
      expect(names.indexOf('PostCompact:manual')).toBeGreaterThan(names.indexOf('SessionStart:compact'));
      expect(names.at(-1)).toBe('SessionEnd:');
    });

    it('every event reached hookd as Claude, in the session cwd, with the raw payload', () => {
      expect(captured().length).toBeGreaterThan(10);
      for (const c of captured()) {
        expect(c.agent, c.ev).toBe('claude');
        expect(c.pwd).toBe(work);
        expect(payloadOf(c).hook_event_name).toBe(c.ev);
      }
    });
  });
});
