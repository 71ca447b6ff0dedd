import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import type { SidecarSpec } from './sidecar.js';

/**
 * An OTLP/HTTP server that keeps every request it gets as files, run as a sidecar beside a real agent
 * inside the agent's network namespace (where a server of the test process cannot be reached). It
 * answers 200 to every request and writes its body, exactly as it came, to `dir/<n>-<signal>.<pb|json>`
 * and one line per request to `dir/requests.jsonl`. It stands in for the agent's endpoint (to record
 * what the agent sends) or for a team's collector (what hookd's receiver forwards); with `child` it also
 * starts that process (a hookd daemon) and is ready when both are. SIGTERM stops the child with SIGTERM,
 * waits for it, then closes.
 */
export interface OtlpSidecarConfig {
  port: number;
  dir: string;
  /** Written once the server listens (and the child is ready). */
  readyFile: string;
  child?: SidecarSpec;
}

/** One request as `requests.jsonl` lists it. */
export interface RecordedRequest {
  /** The body's file name inside `dir`. */
  file: string;
  path: string;
  contentType: string;
  contentEncoding: string;
  /** The Authorization header as it came (the receiver token of a throwaway test run). */
  authorization: string;
  bytes: number;
}

const SIGNALS: Record<string, string> = {
  '/v1/metrics': 'metrics',
  '/v1/logs': 'logs',
  '/v1/traces': 'traces',
};

async function main(config: OtlpSidecarConfig): Promise<void> {
  mkdirSync(config.dir, { recursive: true });
  let n = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '';
      const contentType = req.headers['content-type'] ?? '';
      n += 1;
      const file = `${String(n).padStart(3, '0')}-${SIGNALS[path] ?? 'other'}.${contentType.includes('json') ? 'json' : 'pb'}`;
      const body = Buffer.concat(chunks);
      writeFileSync(join(config.dir, file), body);
      const line: RecordedRequest = {
        file,
        path,
        contentType,
        contentEncoding: req.headers['content-encoding'] ?? '',
        authorization: req.headers.authorization ?? '',
        bytes: body.length,
      };
      appendFileSync(join(config.dir, 'requests.jsonl'), `${JSON.stringify(line)}\n`);
      res.writeHead(200, { 'content-type': contentType.includes('json') ? 'application/json' : contentType });
      res.end(contentType.includes('json') ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(config.port, '127.0.0.1', resolve));
  let child: ChildProcess | undefined;
  if (config.child) {
    const spec = config.child;
    child = spawn(spec.argv[0]!, spec.argv.slice(1), {
      env: spec.env,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const deadline = Date.now() + 30_000;
    while (!existsSync(spec.readyFile)) {
      if (child.exitCode !== null) throw new Error('the child of the OTLP sidecar ended before it was ready');
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error('the child of the OTLP sidecar was not ready within 30 s');
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
  writeFileSync(config.readyFile, String(process.pid));
  process.once('SIGTERM', () => {
    const stopped =
      child && child.exitCode === null && child.signalCode === null
        ? new Promise((resolve) => {
            child.once('exit', resolve);
            child.kill('SIGTERM');
          })
        : Promise.resolve();
    // The child (a daemon forwarding to this server) finishes its sends before the server closes.
    void stopped.then(() => {
      server.closeAllConnections();
      server.close(() => process.exit(0));
    });
  });
}

if (process.argv[2])
  void main(JSON.parse(readFileSync(process.argv[2], 'utf8')) as OtlpSidecarConfig).catch(
    (error: unknown) => {
      process.stderr.write(`otlp sidecar: ${String((error as Error).stack ?? error)}\n`);
      process.exit(70);
    },
  );
