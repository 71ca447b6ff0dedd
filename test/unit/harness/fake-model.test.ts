import { describe, expect, it } from 'vitest';
import { decide, type ChatRequest } from '../../harness/droid/fake-model.js';
import { replyMarker, type FakeStep } from '../../harness/droid/script.js';

const tools = (...names: string[]) => names.map((name) => ({ function: { name } }));
const script: FakeStep[] = [
  { tool: 'shell', input: { command: 'echo hi' } },
  { tool: 'write', input: { path: 'a.txt', content: 'x' } },
  {
    parallel: [
      { tool: 'Read', input: { file_path: '/etc/hostname' } },
      { tool: 'shell', input: { command: 'true' } },
    ],
  },
  { text: 'done' },
];
const toolTurn = { role: 'assistant', tool_calls: [{ id: 'c1' }] };

describe('the fake model decides from the conversation alone', () => {
  it('takes the step numbered by the tool-call turns already taken, mapped to the tools Droid offers', () => {
    const offered = tools('Execute', 'Create', 'Read');
    expect(decide({ tools: offered, messages: [{ role: 'user', content: 'go' }] }, script, '/w')).toEqual({
      kind: 'tool',
      calls: [
        {
          name: 'Execute',
          input: {
            summary: 'Run a harmless test command',
            riskLevel: 'low',
            riskLevelReason: 'A harmless command of the test script.',
            command: 'echo hi',
          },
        },
      ],
    });
    const after = (n: number): ChatRequest => ({ tools: offered, messages: Array(n).fill(toolTurn) });
    expect(decide(after(1), script, '/w')).toEqual({
      kind: 'tool',
      calls: [{ name: 'Create', input: { file_path: '/w/a.txt', content: 'x' } }],
    });
    expect(decide(after(2), script, '/w')).toMatchObject({
      kind: 'tool',
      calls: [{ name: 'Read', input: { file_path: '/etc/hostname' } }, { name: 'Execute' }],
    });
    expect(decide(after(3), script, '/w')).toEqual({ kind: 'text', text: 'done' });
    expect(decide(after(9), script, '/w')).toEqual({ kind: 'text', text: 'Done.' });
  });

  it('passes over a step whose tool is not offered', () => {
    expect(decide({ tools: tools('Execute', 'Read'), messages: [toolTurn] }, script, '/w')).toMatchObject({
      kind: 'tool',
      calls: [{ name: 'Read' }, { name: 'Execute' }],
    });
  });

  it('answers a marked conversation (a sub-agent) with its reply, and a request without tools with OK', () => {
    const marked = { role: 'user', content: [{ type: 'text', text: `${replyMarker('sub done')} go` }] };
    expect(decide({ tools: tools('Execute'), messages: [marked] }, script, '/w')).toEqual({
      kind: 'text',
      text: 'sub done',
    });
    expect(decide({ messages: [{ role: 'user', content: 'title?' }] }, script, '/w')).toEqual({
      kind: 'text',
      text: 'OK',
    });
  });

  it('answers with an API error when the script says so', () => {
    expect(decide({ tools: tools('Execute'), messages: [] }, [{ error: { status: 429 } }], '/w')).toEqual({
      kind: 'error',
      status: 429,
      message: 'scripted error',
    });
  });
});
