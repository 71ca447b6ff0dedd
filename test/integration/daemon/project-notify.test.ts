import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDaemon } from '../../../src/daemon/lifecycle/daemon.js';
import { handOff } from '../../../src/link/client.js';
import { trustProjectFile } from '../../../src/config/trust.js';
import { projectConfigPath } from '../../../src/paths.js';
import { fixture, handoffOf, loopbackServer, tempEnv, waitFor } from './helpers.js';
import { writeConfig } from './process-helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Posted {
  notification: { title: string; rule: string };
}

async function setup() {
  const temp = tempEnv();
  cleanups.push(temp.cleanup);
  const user = await loopbackServer();
  cleanups.push(user.close);
  const project = await loopbackServer();
  cleanups.push(project.close);
  writeConfig(temp.env, {
    notify: {
      waitingDelayMs: 0, // this file is not about the waiting delay (waiting-delay.test.ts is)
      channels: { ops: { type: 'webhook', url: `${user.url}/user` } },
      rules: [{ name: 'mine', on: 'Notification', channels: ['ops'], title: 'user: {{message}}' }],
      noise: { dedupeWindowMs: 0 },
    },
  });
  const projectFile = (dir: string, notify: unknown) => {
    const file = projectConfigPath(dir);
    mkdirSync(join(dir, '.hookd'), { recursive: true });
    writeFileSync(file, JSON.stringify({ notify }));
    return file;
  };
  const daemon = await startDaemon({ env: temp.env, watchConfig: false, housekeepingIntervalMs: 50 });
  cleanups.push(() => daemon.close());
  const send = async (cwd: string, message: string, receivedAt = Date.now()) => {
    const handoff = handoffOf({ ...fixture('04-Notification.json'), cwd, message }, { receivedAt });
    await handOff(handoff, { env: temp.env, timeoutMs: 5000 });
    await waitFor(() => daemon.stats().events.pending === 0 && daemon.stats().outbox.pending === 0);
  };
  const titles = (server: { received: { json: unknown }[] }) =>
    server.received.map((r) => (r.json as Posted).notification.title);
  return { ...temp, user, project, projectFile, send, titles, daemon };
}

describe('project-level notify rules in the daemon', () => {
  it('a trusted project adds a channel and a rule for its own events only; an untrusted one never fires', async () => {
    const t = await setup();
    const trusted = join(t.root, 'trusted');
    const untrusted = join(t.root, 'untrusted');
    const rules = (name: string) => ({
      channels: { team: { type: 'webhook', url: `${t.project.url}/${name}` } },
      rules: [{ name: 'team', on: 'Notification', channels: ['team', 'ops'], title: `${name}: {{message}}` }],
    });
    trustProjectFile(t.env, t.projectFile(trusted, rules('trusted')));
    t.projectFile(untrusted, rules('untrusted'));

    await t.send(trusted, 'one');
    await t.send(untrusted, 'two');
    await t.send(t.root, 'three');
    await waitFor(() => t.user.received.length === 4, 10_000, 'four posts to the user channel');
    expect(t.titles(t.project)).toEqual(['trusted: one']);
    expect(t.titles(t.user).sort()).toEqual(['trusted: one', 'user: one', 'user: three', 'user: two']);
    expect(t.project.received[0]!.url).toBe('/trusted');
  });

  it('a project rule cannot silence a user rule, and a changed file applies only once trusted again', async () => {
    const t = await setup();
    const dir = join(t.root, 'p');
    // Same name and same text as the user's rule: without separation it would share its dedupe memory.
    const notify = {
      rules: [
        {
          name: 'mine',
          on: 'Notification',
          channels: ['ops'],
          title: 'user: {{message}}',
          dedupeWindowMs: 600000,
        },
      ],
    };
    const file = t.projectFile(dir, notify);
    trustProjectFile(t.env, file);
    await t.send(dir, 'x', Date.now() - 60_000); // a minute apart: the same bytes within a second are one event
    await t.send(dir, 'x');
    // The user rule fires both times; the project rule once (its own dedupe window).
    await waitFor(() => t.user.received.length === 3, 10_000, 'three posts');
    const rules = t.user.received.map((r) => (r.json as Posted).notification.rule);
    expect(rules.filter((r) => r === 'mine')).toHaveLength(2);
    expect(rules.filter((r) => r === 'project:mine')).toHaveLength(1);

    // Changed and not trusted again: its rules stop; trusted again: they apply.
    writeFileSync(
      file,
      JSON.stringify({ notify: { rules: [{ on: 'Notification', channels: ['ops'], title: 'changed' }] } }),
    );
    await t.send(dir, 'y');
    await waitFor(() => t.user.received.length === 4, 10_000, 'the user rule only');
    trustProjectFile(t.env, file);
    await t.send(dir, 'z');
    await waitFor(() => t.user.received.length === 6, 10_000, 'both rules again');
    expect(t.titles(t.user).slice(3).sort()).toEqual(['changed', 'user: y', 'user: z'].sort());
  });
});
