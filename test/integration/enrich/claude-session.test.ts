import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEnricher } from '../../../src/enrich/enricher.js';
import { claudeSlug, claudeTranscriptPath } from '../../../src/enrich/claude-session.js';
import { readLocalSession } from '../../../src/enrich/session-store.js';
import { defaultNotificationText } from '../../../src/notify/default-text.js';
import {
  CLAUDE_SCENARIOS,
  claudeHomeOf,
  recordedClaudeEvents,
  type ClaudeScenario,
} from '../../helpers/claude-recorded.js';

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The print scenario's store copied to a temp HOME (to be changed), its events pointing at it. */
function copyOfPrintStore() {
  const root = mkdtempSync(join(tmpdir(), 'hkd-claude-'));
  temps.push(root);
  const home = join(root, '.claude');
  cpSync(claudeHomeOf('print'), home, { recursive: true });
  const events = recordedClaudeEvents('print', { claudeHome: home });
  return { events, path: String(events[0]!.event.payload.transcript_path) };
}

const tokens = (input: number, output: number) => ({
  input,
  output,
  cacheRead: 0,
  cacheWrite: 0,
  thinking: 0,
  total: input + output,
});

/** Per scenario, what its recorded store says (checked by hand against the transcripts). */
const EXPECTED: Record<
  ClaudeScenario,
  {
    model: string;
    tokens: ReturnType<typeof tokens>;
    prompts: number;
    messages: number;
    tools: Record<string, number>;
  }
> = {
  // Main transcript 20/10; no sub-agent.
  auto: { model: 'claude-opus-5-5', tokens: tokens(20, 10), prompts: 1, messages: 4, tools: { Bash: 1 } },
  // Main 90/45 (the API error is a "<synthetic>" message with zero usage) + the sub-agent 10/5; the last
  // turn ran on sonnet after /model. Prompts: the first, /greet, the failing one, the last.
  extras: {
    model: 'claude-sonnet-5-5',
    tokens: tokens(100, 50),
    prompts: 4,
    messages: 21,
    tools: { Bash: 5, Agent: 1 },
  },
  print: {
    model: 'claude-opus-5-5',
    tokens: tokens(50, 25),
    prompts: 1,
    messages: 8,
    tools: { Bash: 1, Write: 1, Agent: 1 },
  },
  // /compact's forks leave no transcript: their usage is not in any file.
  stream: {
    model: 'claude-opus-5-5',
    tokens: tokens(50, 25),
    prompts: 1,
    messages: 11,
    tools: { Bash: 1, Write: 1, Agent: 1 },
  },
  // The <task-notification> prompt is not counted as a person's.
  tui: {
    model: 'claude-opus-5-5',
    tokens: tokens(60, 30),
    prompts: 1,
    messages: 13,
    tools: { Bash: 1, Write: 1, Agent: 1 },
  },
};

describe('enrichment from the recorded Claude Code 2.1.330 session stores', () => {
  it.each(CLAUDE_SCENARIOS)(
    '%s: title, model, tools, messages, prompts and tokens (usage summed once per message, sub-agents included)',
    async (scenario) => {
      const enricher = createEnricher({ gitBranch: false });
      const events = recordedClaudeEvents(scenario);
      for (const { event } of events) {
        const e = await enricher.enrich(event);
        expect(e.warnings).toEqual([]);
        expect(e.session.project).toBe('/home/dev/projects/demo');
      }
      const end = events.at(-1)!.event;
      expect(end.name).toBe('SessionEnd');
      const e = await enricher.enrich(end);
      const want = EXPECTED[scenario];
      expect(e.session).toMatchObject({
        title: 'Run the shell command echo hi, then create the file hook-demo.txt, then ask a…',
        model: want.model,
        isSubagent: false,
        messageCount: want.messages,
        promptCount: want.prompts,
        toolCalls: want.tools,
        tokens: want.tokens,
        ownTokens: want.tokens,
      });
      expect(e.sources).toEqual(['event', 'transcript']);
    },
  );

  it("a Stop's notification says the last message, and tokens; a StopFailure names the error", async () => {
    const enricher = createEnricher({ gitBranch: false });
    const events = recordedClaudeEvents('extras');
    const stop = events.find((r) => r.file === '31-Stop.json')!.event;
    const text = defaultNotificationText(stop, await enricher.enrich(stop));
    expect(text.title).toBe(
      'Finished: Run the shell command echo hi, then create the file hook-demo.txt, then ask a… in demo',
    );
    expect(text.body.split('\n')[0]).toBe('First turn done.');
    const failure = events.find((r) => r.file.startsWith('41-StopFailure'))!.event;
    expect(defaultNotificationText(failure, await enricher.enrich(failure))).toEqual({
      title: 'Failed: Run the shell command echo hi, then create the file hook-demo.txt, then ask a… in demo',
      body: 'Error: unknown\nAPI Error: 400 fake-model-server: scripted error',
    });
  });

  it("a PermissionRequest's notification names the tool and the file; SubagentStop names the sub-agent's task", async () => {
    const enricher = createEnricher({ gitBranch: false });
    const events = recordedClaudeEvents('stream');
    const request = events.find((r) => r.event.name === 'PermissionRequest')!.event;
    expect(defaultNotificationText(request, await enricher.enrich(request))).toMatchObject({
      title: 'Needs your permission: Write',
      body: expect.stringContaining('/home/dev/projects/demo/hook-demo.txt') as string,
    });
    const subStop = events.find((r) => r.file.startsWith('13-SubagentStop'))!.event;
    const e = await enricher.enrich(subStop);
    expect(e.task).toMatchObject({ name: 'Tiny sub task', result: 'subagent finished' });
    expect(defaultNotificationText(subStop, e).title).toBe('Sub-agent finished: Tiny sub task');
  });

  it('counts a message streamed over several lines (one per content block, same id) once', async () => {
    const { events, path } = copyOfPrintStore();
    // Split the first assistant line into a thinking line and a tool_use line of the same message, as the
    // real CLI writes a streamed multi-block message (each line repeats the message's usage).
    const lines = readFileSync(path, 'utf8').split('\n');
    const at = lines.findIndex((l) => l.includes('"type":"assistant"'));
    const line = JSON.parse(lines[at]!) as { message: { content: unknown[] }; uuid: string };
    const thinking = {
      ...line,
      uuid: `${line.uuid}-0`,
      message: { ...line.message, content: [{ type: 'thinking', thinking: 'hm', signature: 'x' }] },
    };
    lines.splice(at, 0, JSON.stringify(thinking));
    writeFileSync(path, lines.join('\n'));
    const info = await readLocalSession({
      sessionId: String(events[0]!.event.sessionId),
      transcriptPath: path,
    });
    expect(info.tokens).toEqual(EXPECTED.print.tokens);
    expect(info.messageCount).toBe(EXPECTED.print.messages);
    expect(info.toolCalls).toEqual(EXPECTED.print.tools);
  });

  it('without transcript_path, finds the transcript by the cwd slug (every non-alphanumeric character is -)', async () => {
    expect(claudeSlug('/home/dev/projects/demo')).toBe('-home-dev-projects-demo');
    expect(claudeSlug('/home/dev/my_app.v2')).toBe('-home-dev-my-app-v2');
    const home = claudeHomeOf('auto');
    const start = recordedClaudeEvents('auto')[0]!.event;
    expect(
      claudeTranscriptPath(start.sessionId!, '/home/dev/projects/demo', { CLAUDE_CONFIG_DIR: home }),
    ).toBe(String(start.payload.transcript_path));
  });

  it('reads a transcript larger than maxReadBytes in part, and then does not guess its tokens', async () => {
    const { events, path } = copyOfPrintStore();
    const original = readFileSync(path, 'utf8');
    const filler = `${JSON.stringify({ type: 'attachment', attachment: { type: 'x', content: 'y'.repeat(1000) } })}\n`;
    writeFileSync(path, original + filler.repeat(400));
    const info = await readLocalSession({
      sessionId: String(events[0]!.event.sessionId),
      transcriptPath: path,
      maxReadBytes: 128 * 1024,
    });
    expect(info.transcriptComplete).toBe(false);
    expect(info.bytesRead).toBeLessThanOrEqual(128 * 1024 + 1);
    expect(info.tokens).toBeUndefined();
    expect(info.title).toBe('Run the shell command echo hi, then create the file hook-demo.txt, then ask a…');
    expect(info.warnings).toContainEqual(expect.stringMatching(/^tokens, messages and prompts not counted/));
  });
});
