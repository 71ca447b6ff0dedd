import type { SimComputer } from './seed.js';

/**
 * Computer status, derived from the provisioning steps at a given time. Step statuses (not documented):
 * pending, running, completed, failed. A computer is `error` when a step failed, `active` when all steps
 * completed, `provisioning` otherwise (including a BYOM computer waiting for its host).
 */

export function stepStatus(step: SimComputer['steps'][number], nowMs: number): string {
  if (step.startAt === undefined || nowMs < step.startAt) return 'pending';
  if (nowMs < step.startAt + step.durationMs) return 'running';
  return step.failWith ? 'failed' : 'completed';
}

export function computerStatus(computer: SimComputer, nowMs: number): 'provisioning' | 'active' | 'error' {
  const statuses = computer.steps.map((s) => stepStatus(s, nowMs));
  if (statuses.includes('failed')) return 'error';
  return statuses.every((s) => s === 'completed') ? 'active' : 'provisioning';
}

export function viewComputer(computer: SimComputer, nowMs: number): Record<string, unknown> {
  const status = computerStatus(computer, nowMs);
  let blocked = false;
  const provisioningSteps = computer.steps.map((step) => {
    // Steps after a failed one never start.
    const s = blocked ? 'pending' : stepStatus(step, nowMs);
    if (s === 'failed') blocked = true;
    return {
      id: step.id,
      name: step.name,
      status: s,
      ...(s === 'failed' ? { error: step.failWith } : {}),
      ...(s !== 'pending' && step.startAt !== undefined ? { startedAt: step.startAt } : {}),
      ...((s === 'completed' || s === 'failed') && step.startAt !== undefined
        ? { completedAt: step.startAt + step.durationMs }
        : {}),
      ...(step.installSessionId && s !== 'pending' ? { installSessionId: step.installSessionId } : {}),
    };
  });
  const relay = `wss://relay.simulator.invalid/${computer.id}`;
  return {
    id: computer.id,
    name: computer.name,
    providerType: computer.providerType,
    createdAt: computer.createdAt,
    ...(computer.hostId ? { hostId: computer.hostId } : {}),
    ...(computer.hostname ? { hostname: computer.hostname } : {}),
    status,
    provisioningSteps,
    ...(status === 'active' ? { relayClientUrl: `${relay}/client`, relayAgentUrl: `${relay}/agent` } : {}),
    remoteUser: computer.remoteUser,
    ownerPrincipalKind: computer.ownerPrincipalKind,
    ownerId: computer.ownerId,
    // Not in the spec: the platform adds fields; clients must tolerate them.
    repos: computer.repos,
  };
}
