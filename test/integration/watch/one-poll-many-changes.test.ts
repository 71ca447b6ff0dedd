import { afterEach, expect, it } from 'vitest';
import { watchSetup } from './helpers.js';

let s: Awaited<ReturnType<typeof watchSetup>> | undefined;
afterEach(async () => {
  await s?.close();
});

it('two changes in one poll raise two notifications', async () => {
  s = await watchSetup({ members: { enabled: true } });
  await s.poll('members');
  s.sim.script.addMember('one@acme.example');
  s.sim.script.addMember('two@acme.example');
  const outcome = await s.poll('members');
  expect(outcome.raised).toHaveLength(2);
  expect(s.received().map((n) => n.title)).toEqual([
    'one@acme.example joined the organization',
    'two@acme.example joined the organization',
  ]);
});
