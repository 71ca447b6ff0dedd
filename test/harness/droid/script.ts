/**
 * What the fake model answers, step by step. A step is the model's whole answer to one request: a final
 * text, one tool call, several tool calls in one message, or an API error. Tool steps name a logical tool
 * that is mapped to the one Droid offers (`shell` -> Execute, `write` -> Create, `subagent` -> Task), or
 * any tool name Droid offers, verbatim.
 */
export interface ToolStep {
  tool: string;
  input: Record<string, unknown>;
}

export type FakeStep =
  { text: string } | ToolStep | { parallel: ToolStep[] } | { error: { status: number; message?: string } };

export interface ToolCall {
  name: string;
  input: Record<string, unknown>;
}

/** Marks a conversation the fake model answers with a fixed text (how a sub-agent gets its reply). */
export const replyMarker = (text: string): string => `[[FAKE_REPLY:${text}]]`;
export const REPLY_MARKER = /\[\[FAKE_REPLY:([^\]]*)\]\]/;

export const DEFAULT_PROMPT =
  'Run the shell command echo hi, then create the file hook-demo.txt, then report back.';

export const DEFAULT_SCRIPT: FakeStep[] = [
  { tool: 'shell', input: { command: 'echo hi' } },
  { tool: 'write', input: { path: 'hook-demo.txt', content: 'hello from fake model\n' } },
  { tool: 'subagent', input: { description: 'Tiny sub task', reply: 'subagent finished' } },
  { text: 'All done: ran `echo hi`, created hook-demo.txt and ran a sub-agent.' },
];

/**
 * The concrete call for a tool step, given the tools Droid offered in this request; undefined when Droid
 * does not offer it (for example Create in a read-only session): the step is then passed over.
 */
export function droidToolCall(step: ToolStep, offered: string[], workDir: string): ToolCall | undefined {
  const input = step.input;
  switch (step.tool) {
    case 'shell':
      // Execute requires a summary and, in some modes, a risk level with its reason.
      return offered.includes('Execute')
        ? {
            name: 'Execute',
            input: {
              summary: 'Run a harmless test command',
              riskLevel: 'low',
              riskLevelReason: 'A harmless command of the test script.',
              ...input,
            },
          }
        : undefined;
    case 'write': {
      if (!offered.includes('Create')) return undefined;
      const path = String(input.path);
      return {
        name: 'Create',
        input: { file_path: path.startsWith('/') ? path : `${workDir}/${path}`, content: input.content },
      };
    }
    case 'subagent':
      // The sub-agent's own conversation carries the marker, so the fake model answers it with `reply`.
      return offered.includes('Task')
        ? {
            name: 'Task',
            input: {
              subagent_type: 'worker',
              description: input.description ?? 'Sub task',
              prompt: `${replyMarker(String(input.reply ?? 'subagent done'))} Report back in one line.`,
              await: true,
            },
          }
        : undefined;
    default:
      return offered.includes(step.tool) ? { name: step.tool, input } : undefined;
  }
}
