import { appendFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { droidToolCall, REPLY_MARKER, type FakeStep, type ToolCall } from './script.js';

/**
 * A scripted model on 127.0.0.1 speaking the OpenAI Chat Completions API, which Droid calls for a custom
 * model of provider `generic-chat-completion-api` (POST <baseUrl>/chat/completions, streamed or not;
 * GET <baseUrl>/models). Stateless: the answer to a request depends only on the conversation in it.
 *
 * - A conversation whose user text holds `[[FAKE_REPLY:x]]` is answered with the text `x`.
 * - A request offering no tools (session titles, compaction summaries) is answered with `OK`.
 * - Otherwise the step taken is the script's step number n, where n is the number of assistant messages
 *   with tool calls already in the conversation; steps whose tools are not offered are passed over; past
 *   the end, `Done.`.
 */
export type Decision =
  | { kind: 'tool'; calls: ToolCall[] }
  | { kind: 'text'; text: string }
  | { kind: 'error'; status: number; message: string };

interface ChatMessage {
  role?: string;
  content?: unknown;
  tool_calls?: unknown[];
}

export interface ChatRequest {
  model?: string;
  stream?: boolean;
  messages?: ChatMessage[];
  tools?: { function?: { name?: string } }[];
}

function textsOf(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((part: unknown) => {
    const text = (part as { text?: unknown } | null)?.text;
    return typeof text === 'string' ? [text] : [];
  });
}

export function decide(request: ChatRequest, script: FakeStep[], workDir: string): Decision {
  const messages = request.messages ?? [];
  for (const text of messages.filter((m) => m.role === 'user').flatMap((m) => textsOf(m.content))) {
    const reply = REPLY_MARKER.exec(text);
    if (reply) return { kind: 'text', text: reply[1]! };
  }
  const offered = (request.tools ?? []).flatMap((t) => (t.function?.name ? [t.function.name] : []));
  if (offered.length === 0) return { kind: 'text', text: 'OK' };
  const turnsDone = messages.filter((m) => m.role === 'assistant' && (m.tool_calls?.length ?? 0) > 0).length;
  for (const step of script.slice(turnsDone)) {
    if ('text' in step) return { kind: 'text', text: step.text };
    if ('error' in step)
      return { kind: 'error', status: step.error.status, message: step.error.message ?? 'scripted error' };
    const calls = ('parallel' in step ? step.parallel : [step]).flatMap((s) => {
      const call = droidToolCall(s, offered, workDir);
      return call ? [call] : [];
    });
    if (calls.length > 0) return { kind: 'tool', calls };
  }
  return { kind: 'text', text: 'Done.' };
}

let sequence = 0;
const newId = (prefix: string) => `${prefix}${process.pid.toString(36)}x${(sequence++).toString(36)}`;

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function answer(
  request: ChatRequest,
  decision: Exclude<Decision, { kind: 'error' }>,
  res: ServerResponse,
): void {
  const id = newId('chatcmpl-');
  const created = Math.floor(Date.now() / 1000);
  const model = request.model ?? 'fake-model';
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  const calls =
    decision.kind === 'tool'
      ? decision.calls.map((c) => ({
          id: newId('call_'),
          type: 'function',
          function: { name: c.name, arguments: JSON.stringify(c.input) },
        }))
      : [];
  const finishReason = decision.kind === 'tool' ? 'tool_calls' : 'stop';
  if (!request.stream) {
    const message =
      decision.kind === 'tool'
        ? { role: 'assistant', content: null, tool_calls: calls }
        : { role: 'assistant', content: decision.text };
    json(res, 200, {
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [{ index: 0, message, finish_reason: finishReason }],
      usage,
    });
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
  const chunk = (delta: unknown, finish: string | null = null) =>
    send({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  chunk({ role: 'assistant', content: '' });
  if (decision.kind === 'text') chunk({ content: decision.text });
  calls.forEach((call, index) => {
    chunk({
      tool_calls: [
        { index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } },
      ],
    });
    chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments } }] });
  });
  chunk({}, finishReason);
  send({ id, object: 'chat.completion.chunk', created, model, choices: [], usage });
  res.end('data: [DONE]\n\n');
}

function handle(req: IncomingMessage, body: string, res: ServerResponse, options: FakeModelOptions): void {
  const url = req.url ?? '';
  if (req.method === 'GET' && /\/models$/.test(url)) {
    json(res, 200, {
      object: 'list',
      data: [{ id: 'fake-model', object: 'model', created: 0, owned_by: 'hookd-tests' }],
    });
    return;
  }
  if (req.method !== 'POST' || !/\/chat\/completions$/.test(url)) {
    appendFileSync(options.logFile, `${JSON.stringify({ method: req.method, url, unrouted: true })}\n`);
    json(res, 404, {
      error: { type: 'not_found', message: `fake model: no route for ${req.method} ${url}` },
    });
    return;
  }
  let request: ChatRequest;
  try {
    request = JSON.parse(body) as ChatRequest;
  } catch {
    json(res, 400, { error: { type: 'invalid_request_error', message: 'fake model: body is not JSON' } });
    return;
  }
  const decision = decide(request, options.script, options.workDir);
  appendFileSync(
    options.logFile,
    `${JSON.stringify({ method: req.method, url, decision, body: request })}\n`,
  );
  if (decision.kind === 'error')
    json(res, decision.status, {
      error: { type: 'invalid_request_error', message: decision.message, code: null },
    });
  else answer(request, decision, res);
}

export interface FakeModelOptions {
  script: FakeStep[];
  /** Where relative paths of `write` steps point: the agent's working directory. */
  workDir: string;
  /** One JSON line per request: the URL, the decision and the whole request body. */
  logFile: string;
}

export interface FakeModel {
  port: number;
  close(): Promise<void>;
}

export async function startFakeModel(options: FakeModelOptions): Promise<FakeModel> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, Buffer.concat(chunks).toString('utf8'), res, options));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
