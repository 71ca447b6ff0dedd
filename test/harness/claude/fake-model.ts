import { appendFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A scripted stand-in for the Anthropic Messages API, on 127.0.0.1 only, enough for the real Claude Code
 * binary: `POST /v1/messages` answered as a server-sent event stream (or one JSON body when the request
 * does not ask to stream), `POST /v1/messages/count_tokens`, and nothing else (404).
 *
 * The script is a list of steps for the main conversation. Which step answers a request is decided from
 * the request alone: the number of assistant turns with tool calls already in it. So retries, title
 * requests and sub-agent conversations never shift the script. Requests that offer no tools (titles,
 * compaction summaries) get a short text. A conversation whose first user text carries `[[reply:...]]`
 * (what an `agent` step puts into the sub-agent's prompt) is answered with that text.
 */
export type ModelStep =
  | { text: string }
  | { bash: string }
  | { write: { path: string; content: string } }
  | { agent: { description: string; reply: string } }
  | { tools: ToolCall[] }
  | { apiError: { status: number; type?: string } };

export interface ToolCall {
  name: string;
  input: Record<string, unknown>;
}

/** One request as the fake received it, one JSON line each in the log. */
export interface ModelRequest {
  path: string;
  body: MessagesBody;
  /** What the fake answered. */
  answer: Answer;
}

interface ContentBlock {
  type: string;
  text?: string;
  content?: unknown;
  is_error?: boolean;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
}

interface MessagesBody {
  model?: string;
  stream?: boolean;
  tools?: { name?: string }[];
  messages?: { role: string; content: string | ContentBlock[] }[];
}

type Answer =
  | { kind: 'text'; text: string }
  | { kind: 'tools'; calls: ToolCall[] }
  | { kind: 'error'; status: number; type: string };

const REPLY = /\[\[reply:([^\]]*)\]\]/;

function blocks(content: string | ContentBlock[]): ContentBlock[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

function toolTurns(body: MessagesBody): number {
  return (body.messages ?? []).filter(
    (m) => m.role === 'assistant' && blocks(m.content).some((b) => b.type === 'tool_use'),
  ).length;
}

function firstUserText(body: MessagesBody): string {
  const first = (body.messages ?? []).find((m) => m.role === 'user');
  return first
    ? blocks(first.content)
        .map((b) => b.text ?? '')
        .join('\n')
    : '';
}

/** The tool calls of a step, in the names Claude Code 2.1.330 offers (Bash, Write, Agent). */
function callsOf(step: ModelStep, workDir: string): ToolCall[] | undefined {
  if ('bash' in step)
    return [{ name: 'Bash', input: { command: step.bash, description: 'scripted command' } }];
  if ('write' in step) {
    const path = step.write.path.startsWith('/') ? step.write.path : `${workDir}/${step.write.path}`;
    return [{ name: 'Write', input: { file_path: path, content: step.write.content } }];
  }
  if ('agent' in step) {
    return [
      {
        name: 'Agent',
        input: {
          subagent_type: 'general-purpose',
          description: step.agent.description,
          prompt: `[[reply:${step.agent.reply}]] Report in one line.`,
          // Claude Code runs agents in the background unless told otherwise; the parent must wait here
          run_in_background: false,
        },
      },
    ];
  }
  if ('tools' in step) return step.tools;
  return undefined;
}

function decide(body: MessagesBody, script: readonly ModelStep[], workDir: string): Answer {
  const reply = REPLY.exec(firstUserText(body));
  if (reply) return { kind: 'text', text: reply[1]! };
  if (!body.tools || body.tools.length === 0) return { kind: 'text', text: 'OK' };
  const step = script[toolTurns(body)];
  if (!step) return { kind: 'text', text: 'Done.' };
  if ('text' in step) return { kind: 'text', text: step.text };
  if ('apiError' in step)
    return {
      kind: 'error',
      status: step.apiError.status,
      type: step.apiError.type ?? 'invalid_request_error',
    };
  return { kind: 'tools', calls: callsOf(step, workDir)! };
}

let ids = 0;
const nextId = (prefix: string) =>
  `${prefix}${process.pid.toString(36)}${(ids++).toString(36).padStart(6, '0')}`;

function respond(res: ServerResponse, body: MessagesBody, answer: Answer): void {
  if (answer.kind === 'error') {
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ type: 'error', error: { type: answer.type, message: 'scripted API error' } }));
    return;
  }
  const content =
    answer.kind === 'text'
      ? [{ type: 'text', text: answer.text }]
      : answer.calls.map((c) => ({ type: 'tool_use', id: nextId('toolu_'), name: c.name, input: c.input }));
  const message = {
    id: nextId('msg_'),
    type: 'message',
    role: 'assistant',
    model: body.model ?? 'fake',
    stop_reason: answer.kind === 'text' ? 'end_turn' : 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 21, output_tokens: 8, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...message, content }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (event: string, data: Record<string, unknown>) =>
    res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
  send('message_start', { message: { ...message, content: [], stop_reason: null } });
  content.forEach((block, index) => {
    if (block.type === 'tool_use') {
      send('content_block_start', { index, content_block: { ...block, input: {} } });
      send('content_block_delta', {
        index,
        delta: {
          type: 'input_json_delta',
          partial_json: JSON.stringify((block as { input: unknown }).input),
        },
      });
    } else {
      send('content_block_start', { index, content_block: { type: 'text', text: '' } });
      send('content_block_delta', {
        index,
        delta: { type: 'text_delta', text: (block as { text: string }).text },
      });
    }
    send('content_block_stop', { index });
  });
  send('message_delta', {
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage: { output_tokens: 8 },
  });
  send('message_stop', {});
  res.end();
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export interface FakeModel {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** Starts the fake on 127.0.0.1 (a free port); every request is appended to `logFile` as one JSON line. */
export async function startFakeModel(options: {
  script: readonly ModelStep[];
  logFile: string;
  workDir: string;
}): Promise<FakeModel> {
  const server = createServer((req, res) => {
    void readBody(req).then((raw) => {
      const path = req.url ?? '';
      if (req.method === 'POST' && /\/messages\/count_tokens/.test(path)) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ input_tokens: 42 }));
        return;
      }
      if (req.method !== 'POST' || !/\/messages(\?|$)/.test(path)) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: path } }));
        return;
      }
      let body: MessagesBody = {};
      try {
        body = JSON.parse(raw) as MessagesBody;
      } catch {
        // an unparsable body gets the default answer; the log keeps what came
      }
      const answer = decide(body, options.script, options.workDir);
      const record: ModelRequest = { path, body, answer };
      appendFileSync(options.logFile, `${JSON.stringify(record)}\n`);
      respond(res, body, answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The text of every tool result the model was sent, with whether it was an error. */
export function toolResults(requests: readonly ModelRequest[]): { text: string; isError: boolean }[] {
  const out: { text: string; isError: boolean }[] = [];
  for (const r of requests)
    for (const m of r.body.messages ?? [])
      for (const b of blocks(m.content))
        if (b.type === 'tool_result') {
          const text =
            typeof b.content === 'string'
              ? b.content
              : Array.isArray(b.content)
                ? (b.content as ContentBlock[]).map((c) => c.text ?? '').join('\n')
                : '';
          out.push({ text, isError: b.is_error === true });
        }
  return out;
}

/** Every text the model was sent in user messages (tool results included), for "the model sees X". */
export function textsSentToModel(requests: readonly ModelRequest[]): string[] {
  return requests.flatMap((r) =>
    (r.body.messages ?? [])
      .filter((m) => m.role === 'user')
      .flatMap((m) =>
        blocks(m.content).map((b) => (b.type === 'tool_result' ? JSON.stringify(b.content) : (b.text ?? ''))),
      ),
  );
}
