import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A scripted stand-in for the Gemini API on 127.0.0.1, enough for the real Gemini CLI 0.61.0:
 * `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` (and `:generateContent`), `:countTokens`.
 * The main conversation (a request offering tools) is answered from the script by the number of
 * function responses already in it; side requests that ask for JSON (the CLI's next-speaker check, model
 * router) get an object shaped by their schema, saying "the user speaks next"; other side requests "OK".
 */
export type GeminiStep = { text: string } | { shell: string };

export interface GeminiPart {
  text?: string;
  functionCall?: { name: string; args: unknown };
  functionResponse?: { name: string; response: unknown };
}

export interface GeminiBody {
  contents?: { role?: string; parts?: GeminiPart[] }[];
  tools?: { functionDeclarations?: { name: string }[] }[];
  generationConfig?: { responseMimeType?: string; responseJsonSchema?: Schema; responseSchema?: Schema };
}

interface Schema {
  type?: string;
  enum?: unknown[];
  properties?: Record<string, Schema>;
}

export interface GeminiRequest {
  path: string;
  body: GeminiBody;
  answer: GeminiPart[];
}

/** The function responses the model was given in a request, in order. */
export function functionResponses(body: GeminiBody): unknown[] {
  return (body.contents ?? []).flatMap((c) =>
    (c.parts ?? []).flatMap((p) => (p.functionResponse ? [p.functionResponse.response] : [])),
  );
}

function shaped(schema: Schema | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, prop] of Object.entries(schema?.properties ?? {})) {
    const type = String(prop.type ?? '').toLowerCase();
    if (key === 'next_speaker') out[key] = 'user';
    else if (prop.enum?.length) out[key] = prop.enum[0];
    else if (type === 'boolean') out[key] = false;
    else if (type === 'number' || type === 'integer') out[key] = 0;
    else if (type === 'array') out[key] = [];
    else if (type === 'object') out[key] = {};
    else out[key] = 'offline';
  }
  return out;
}

function answerFor(body: GeminiBody, script: GeminiStep[]): GeminiPart[] {
  const offersTools = (body.tools ?? []).some((t) => (t.functionDeclarations ?? []).length > 0);
  if (!offersTools) {
    const config = body.generationConfig ?? {};
    const schema = config.responseJsonSchema ?? config.responseSchema;
    if (config.responseMimeType === 'application/json' || schema)
      return [{ text: JSON.stringify(shaped(schema)) }];
    return [{ text: 'OK' }];
  }
  const step = script[functionResponses(body).length] ?? { text: 'Done.' };
  if ('shell' in step)
    return [
      { functionCall: { name: 'run_shell_command', args: { command: step.shell, description: 'run it' } } },
    ];
  return [{ text: step.text }];
}

export async function startFakeGemini(options: {
  script: GeminiStep[];
  logFile: string;
}): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      let body: GeminiBody = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as GeminiBody;
      } catch {
        res.writeHead(400).end();
        return;
      }
      if (/:countTokens/.test(path)) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ totalTokens: 10 }));
        return;
      }
      const model = /\/models\/([^/:]+):(stream)?[gG]enerateContent/.exec(path);
      if (req.method !== 'POST' || !model) {
        res.writeHead(404).end();
        return;
      }
      const parts = answerFor(body, options.script);
      appendFileSync(
        options.logFile,
        `${JSON.stringify({ path, body, answer: parts } satisfies GeminiRequest)}\n`,
      );
      const chunk = {
        candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 120, candidatesTokenCount: 7, totalTokenCount: 127 },
        modelVersion: model[1],
      };
      if (!model[2]) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(chunk));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.end(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
