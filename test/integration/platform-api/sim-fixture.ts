import { afterEach, beforeEach } from 'vitest';
import { PlatformClient, type PlatformClientOptions } from '../../../src/platform-api/api-client.js';
import { startSimulator, type Simulator } from '../../../src/platform-api/simulator/index.js';

/** A fixed instant shared by the simulator and the client: UTC today is 2026-11-20. */
export const NOW = new Date('2026-11-20T12:00:00Z');
export const YESTERDAY = '2026-11-19';

export interface SimFixture {
  sim: Simulator;
  /** Requests that left the client (through its injected fetch). */
  sent: string[];
  client(role?: 'owner' | 'manager' | 'member', extra?: Partial<PlatformClientOptions>): PlatformClient;
}

/** Starts a fresh simulator around each test and closes it after. */
export function useSimulator(
  options: { seed?: string; now?: () => Date; provisionStepMs?: number } = {},
): SimFixture {
  const fixture = { sent: [] as string[] } as unknown as SimFixture;
  beforeEach(async () => {
    fixture.sent.length = 0;
    fixture.sim = await startSimulator({
      seed: options.seed ?? 'contract',
      now: options.now ?? (() => NOW),
      provisionStepMs: options.provisionStepMs,
    });
    fixture.client = (role = 'owner', extra = {}) =>
      new PlatformClient({
        baseUrl: fixture.sim.baseUrl,
        appUrl: fixture.sim.appUrl,
        apiKey: fixture.sim.keys[role],
        now: () => NOW,
        retryBaseMs: 1,
        fetch: (input, init) => {
          fixture.sent.push(`${init.method} ${input}`);
          return fetch(input, init);
        },
        ...extra,
      });
  });
  afterEach(async () => {
    await fixture.sim.close();
  });
  return fixture;
}
