import { appendFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A scripted stand-in for the OpenAI Responses API on 127.0.0.1, enough for the real Codex CLI 0.171.0
 * (which speaks nothing else) and Copilot CLI 1.0.102 (its `COPILOT_PROVIDER_WIRE_API=responses`): `POST /v1/responses` answered as a server-sent event stream, or as one
 * JSON body when the request does not ask to stream. Anything else is a 404.
 *
 * Which script step answers a request is decided from the request alone: the number of tool results
 * already in its `input`. So a retry never shifts the script. Past the end of the script the answer is
 * the text "Done.". A `call` step calls the named tool with those arguments as they are (an agent's own
 * tools: Copilot's `edit`, `create`).
 */
export type CodexStep =
  { text: string } | { shell: string } | { call: string; args: Record<string, unknown> };

/** One request as the fake received it, one JSON line each in the log. */
export interface ResponsesRequest {
  path: string;
  body: ResponsesBody;
  answer: { kind: 'text'; text: string } | { kind: 'call'; name: string; arguments: string };
}

export interface ResponsesItem {
  type?: string;
  role?: string;
  call_id?: string;
  name?: string;
  output?: unknown;
  content?: unknown;
}

export interface ResponsesBody {
  model?: string;
  stream?: boolean;
  tools?: { type?: string; name?: string }[];
  input?: ResponsesItem[] | string;
}

function items(body: ResponsesBody): ResponsesItem[] {
  return Array.isArray(body.input) ? body.input : [];
}

const RESULT_TYPES = new Set(['function_call_output', 'custom_tool_call_output']);

/** The tool results the model was given in a request, in order (what hooks fed back is in there). */
export function toolOutputs(body: ResponsesBody): string[] {
  return items(body)
    .filter((i) => RESULT_TYPES.has(i.type ?? ''))
    .map((i) => (typeof i.output === 'string' ? i.output : JSON.stringify(i.output)));
}

/**
 * A shell step as a call of the shell tool the request offers: `exec_command {cmd}` (what Codex 0.171.0
 * offers gpt-5.5), `bash {command, description}` (Copilot CLI 1.0.102), else `shell_command {command}`.
 */
function shellCall(body: ResponsesBody, command: string): { name: string; arguments: string } {
  const offered = new Set((body.tools ?? []).map((t) => t.name));
  if (offered.has('exec_command'))
    return { name: 'exec_command', arguments: JSON.stringify({ cmd: command }) };
  if (offered.has('bash'))
    return { name: 'bash', arguments: JSON.stringify({ command, description: 'Run a command' }) };
  return { name: 'shell_command', arguments: JSON.stringify({ command }) };
}

let counter = 0;
const newId = (prefix: string) => `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}`;

function answer(res: ServerResponse, body: ResponsesBody, step: CodexStep): ResponsesRequest['answer'] {
  const call =
    'shell' in step
      ? shellCall(body, step.shell)
      : 'call' in step
        ? { name: step.call, arguments: JSON.stringify(step.args) }
        : undefined;
  const item = call
    ? { type: 'function_call', id: newId('fc_'), call_id: newId('call_'), status: 'completed', ...call }
    : {
        type: 'message',
        id: newId('msg_'),
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: (step as { text: string }).text, annotations: [] }],
      };
  const usage = {
    input_tokens: 120,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 7,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 127,
  };
  const response = {
    id: newId('resp_'),
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: 'completed',
    model: body.model ?? 'gpt-5.5',
    output: [item],
    usage,
  };
  const said: ResponsesRequest['answer'] = call
    ? { kind: 'call', ...call }
    : { kind: 'text', text: (step as { text: string }).text };
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(response));
    return said;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  let sequence = 0;
  const send = (type: string, data: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`);
  send('response.created', { response: { ...response, status: 'in_progress', output: [] } });
  const started = call ? { ...item, arguments: '' } : { ...item, content: [] };
  send('response.output_item.added', { output_index: 0, item: { ...started, status: 'in_progress' } });
  if (call) {
    send('response.function_call_arguments.delta', {
      item_id: item.id,
      output_index: 0,
      delta: call.arguments,
    });
    send('response.function_call_arguments.done', {
      item_id: item.id,
      output_index: 0,
      arguments: call.arguments,
    });
  } else {
    const text = (step as { text: string }).text;
    const part = { type: 'output_text', text, annotations: [] };
    const at = { item_id: item.id, output_index: 0, content_index: 0 };
    send('response.content_part.added', { ...at, part: { ...part, text: '' } });
    send('response.output_text.delta', { ...at, delta: text });
    send('response.output_text.done', { ...at, text });
    send('response.content_part.done', { ...at, part });
  }
  send('response.output_item.done', { output_index: 0, item });
  send('response.completed', { response });
  res.end();
  return said;
}

export interface FakeResponses {
  /** The base URL to give Codex's provider (`base_url`): Codex appends `/responses`. */
  baseUrl: string;
  close(): Promise<void>;
}

export async function startFakeResponses(options: {
  script: CodexStep[];
  logFile: string;
}): Promise<FakeResponses> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      if (req.method !== 'POST' || !/\/responses(\?|$)/.test(path)) {
        res.writeHead(404).end();
        return;
      }
      let body: ResponsesBody;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ResponsesBody;
      } catch {
        res.writeHead(400).end();
        return;
      }
      const step = options.script[toolOutputs(body).length] ?? { text: 'Done.' };
      const said = answer(res, body, step);
      const record: ResponsesRequest = { path, body, answer: said };
      appendFileSync(options.logFile, `${JSON.stringify(record)}\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
