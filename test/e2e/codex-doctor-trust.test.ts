import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CheckResult } from '../../src/doctor/types.js';
import { describeWithAgent } from '../harness/availability.js';
import { runHookd } from '../helpers/run-hookd.js';
import { isolatedEnv, makeTempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

// `hookd doctor` against the REAL Codex CLI 0.171.0's own trust records: hookd installed by `hookd
// install --agent codex`; Codex's `codex app-server` (`hooks/list`, what its /hooks screen shows) says
// what Codex thinks of each hook; trust is written the way the /hooks screen writes it (config.toml
// `[hooks.state."<key>"] trusted_hash`, the hash Codex listed); then an entry is edited. At each step
// doctor, which only reads the files, must say what Codex says.

interface ListedHook {
  key: string;
  eventName: string;
  currentHash: string;
  trustStatus: string;
}

describeWithAgent('codex', "doctor reads the real Codex CLI's hook trust", (bin) => {
  let tmp: { dir: string; cleanup: () => void };
  let env: Record<string, string>;
  let codexHome: string;
  let project: string;
  const servers = new Set<number>();

  beforeAll(async () => {
    tmp = makeTempDir('hkcxt-');
    project = join(tmp.dir, 'project');
    codexHome = join(tmp.dir, 'home', '.codex');
    mkdirSync(project, { recursive: true });
    mkdirSync(codexHome, { recursive: true });
    env = isolatedEnv(tmp.dir, { CODEX_HOME: codexHome });
    // No network at start-up (plugins, apps, analytics), as the harness runs it.
    writeFileSync(
      join(codexHome, 'config.toml'),
      'check_for_update_on_startup = false\n\n[features]\nplugins = false\nremote_plugin = false\napps = false\n\n[analytics]\nenabled = false\n',
    );
    const installed = await runHookd(['install', '--agent', 'codex', '--transport', 'node'], {
      env,
      cwd: project,
    });
    expect(installed.code, installed.stderr).toBe(0);
  });

  afterAll(() => {
    for (const pid of servers) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    tmp?.cleanup();
  });

  /** What `codex app-server` lists for the project: every hook with its trust. */
  async function hooksList(): Promise<ListedHook[]> {
    const server = spawn(bin, ['app-server'], { cwd: project, env, stdio: ['pipe', 'pipe', 'ignore'] });
    servers.add(server.pid!);
    try {
      const send = (message: unknown) => server.stdin.write(`${JSON.stringify(message)}\n`);
      let buffer = '';
      let answer: { result?: { data: { hooks: ListedHook[] }[] }; error?: unknown } | undefined;
      server.stdout.on('data', (chunk: Buffer) => {
        buffer += chunk.toString('utf8');
        for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
          const message = JSON.parse(buffer.slice(0, nl)) as { id?: number } & typeof answer;
          buffer = buffer.slice(nl + 1);
          if (message?.id === 1) {
            send({ jsonrpc: '2.0', method: 'initialized' });
            send({ jsonrpc: '2.0', id: 2, method: 'hooks/list', params: { cwds: [project] } });
          } else if (message?.id === 2) answer = message;
        }
      });
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { clientInfo: { name: 'hookd-test', title: 'hookd test', version: '0' } },
      });
      await waitFor(() => answer !== undefined, 30_000, 'codex app-server answering hooks/list');
      expect(answer!.error).toBeUndefined();
      return answer!.result!.data.flatMap((d) => d.hooks);
    } finally {
      server.kill('SIGKILL');
      servers.delete(server.pid!);
    }
  }

  async function trustCheck(): Promise<CheckResult> {
    const ran = await runHookd(['doctor', '--json', '--timeout', '500'], { env, cwd: project });
    const results = JSON.parse(ran.stdout) as CheckResult[];
    return results.find((r) => r.id === 'codex-trust')!;
  }

  /** `preToolUse` -> `PreToolUse` */
  const eventOf = (h: ListedHook) => h.eventName[0]!.toUpperCase() + h.eventName.slice(1);

  it('after install: Codex lists every hookd hook untrusted, and doctor says wired but not trusted', async () => {
    const listed = await hooksList();
    expect(listed.length).toBe(8);
    expect(new Set(listed.map((h) => h.trustStatus))).toEqual(new Set(['untrusted']));
    const trust = await trustCheck();
    expect(trust.status).toBe('warn');
    const line = /^wired but not trusted: (.*); /m.exec(trust.detail)?.[1];
    expect(new Set(line?.split(', '))).toEqual(new Set(listed.map(eventOf)));
    expect(trust.fix).toContain('`/hooks`');
  });

  it('trusted as the /hooks screen does it: Codex and doctor both say trusted', async () => {
    const listed = await hooksList();
    appendFileSync(
      join(codexHome, 'config.toml'),
      listed
        .map(
          (h) =>
            `\n[hooks.state.${JSON.stringify(h.key)}]\ntrusted_hash = ${JSON.stringify(h.currentHash)}\n`,
        )
        .join(''),
    );
    expect(new Set((await hooksList()).map((h) => h.trustStatus))).toEqual(new Set(['trusted']));
    const trust = await trustCheck();
    expect(trust.status).toBe('ok');
    expect(trust.detail).toMatch(/^trusted: 8 hookd hooks \(/);
  });

  it('an entry edited after it was trusted: Codex says modified, doctor says changed since trusted', async () => {
    const file = join(codexHome, 'hooks.json');
    const hooks = JSON.parse(readFileSync(file, 'utf8')) as {
      hooks: Record<string, { hooks: { timeout: number }[] }[]>;
    };
    hooks.hooks.PreToolUse![0]!.hooks[0]!.timeout = 30;
    writeFileSync(file, JSON.stringify(hooks, null, 2));
    const listed = await hooksList();
    expect(listed.filter((h) => h.trustStatus !== 'trusted').map((h) => [eventOf(h), h.trustStatus])).toEqual(
      [['PreToolUse', 'modified']],
    );
    const trust = await trustCheck();
    expect(trust.status).toBe('warn');
    expect(trust.detail).toMatch(/^changed since trusted: PreToolUse; /);
    expect(trust.detail).toMatch(/^trusted: SessionStart, UserPromptSubmit, PermissionRequest, /m);
  });

  it('a hookd hook written in config.toml: Codex keys it under config.toml, and doctor agrees at each step', async () => {
    const toml = join(codexHome, 'config.toml');
    const json = JSON.parse(readFileSync(join(codexHome, 'hooks.json'), 'utf8')) as {
      hooks: Record<string, { hooks: { command: string }[] }[]>;
    };
    const command = json.hooks.Stop![0]!.hooks[0]!.command.replace('--event Stop', '--event PreCompact');
    appendFileSync(
      toml,
      `\n[[hooks.PreCompact]]\n[[hooks.PreCompact.hooks]]\ntype = "command"\ncommand = ${JSON.stringify(command)}\ntimeout = 60\n`,
    );
    const listed = (await hooksList()).filter((h) => h.eventName === 'preCompact');
    expect(listed.map((h) => [h.key, h.trustStatus])).toEqual([
      [`${realpathSync(toml)}:pre_compact:0:0`, 'untrusted'],
    ]);
    let trust = await trustCheck();
    expect(trust.detail).toMatch(/^wired but not trusted: PreCompact; /m);
    appendFileSync(
      toml,
      `\n[hooks.state.${JSON.stringify(listed[0]!.key)}]\ntrusted_hash = ${JSON.stringify(listed[0]!.currentHash)}\n`,
    );
    expect((await hooksList()).find((h) => h.eventName === 'preCompact')?.trustStatus).toBe('trusted');
    trust = await trustCheck();
    expect(trust.detail).not.toContain('PreCompact;');
    expect(trust.detail).toMatch(/^trusted: .*PreCompact/m);
  });
});
