import { utcDay, addDays } from '../dates.js';
import { createRng } from './random.js';
import { computerStatus } from './computer-view.js';
import type { SimState, SimUser } from './seed.js';

/**
 * Scripted changes to the simulated organization, for `hookd demo` and tests of the platform watchers
 * (docs/watch.md): each call changes what the next request sees, as the real platform would.
 */
export interface SimulatorScript {
  /** Adds standard credits used by a user (by e-mail or id) on a day (default: yesterday, UTC). */
  addUsage(user: string, credits: number, day?: string): void;
  /** Makes a computer (by id or name) show `status` from now on. */
  setComputerStatus(computer: string, status: 'provisioning' | 'active' | 'error'): void;
  /** Appends an enterprise-control revision with these settings changed; returns its revision. */
  changeControls(settings: Record<string, unknown>, by?: string): number;
  /** Adds a readiness report of a repository with `passed` of `evaluated` criteria; returns its id. */
  addReadinessReport(repoUrl: string, passed: number, evaluated: number): string;
  /** Adds a member; returns their id. */
  addMember(email: string): string;
  /** Removes a member (by e-mail or id). */
  removeMember(user: string): void;
}

function findUser(state: SimState, who: string): SimUser {
  const lower = who.toLowerCase();
  const user = state.users.find((u) => u.id === who || u.loginEmail === lower || u.email === lower);
  if (!user) throw new Error(`the simulator has no user ${who}`);
  return user;
}

export function createScript(state: SimState, now: () => number): SimulatorScript {
  const serial = (what: string) => createRng(state.seed, 'script', what, ++state.serial);
  return {
    addUsage(who, credits, day) {
      const user = findUser(state, who);
      const date = day ?? addDays(utcDay(new Date(now())), -1);
      let perUser = state.extraCredits.get(date);
      if (!perUser) state.extraCredits.set(date, (perUser = new Map()));
      perUser.set(user.id, (perUser.get(user.id) ?? 0) + credits);
    },
    setComputerStatus(which, status) {
      const computer = state.computers.find((c) => c.id === which || c.name === which);
      if (!computer) throw new Error(`the simulator has no computer ${which}`);
      const at = now();
      if (computerStatus(computer, at) === status) return;
      let start = at - computer.steps.reduce((sum, s) => sum + s.durationMs, 0) - 1;
      for (const step of computer.steps) {
        step.startAt = start;
        step.failWith = undefined;
        start += step.durationMs;
      }
      const last = computer.steps[computer.steps.length - 1];
      if (status === 'error' && last) last.failWith = 'scripted failure';
      // Provisioning: the last step is still running.
      if (status === 'provisioning' && last) last.startAt = at;
    },
    changeControls(settings, by) {
      const latest = state.changes[0];
      const author = by ? findUser(state, by) : state.users.find((u) => u.role === 'Owner')!;
      const revision = (latest?.revision ?? 0) + 1;
      state.changes.unshift({
        revision,
        settings: { ...structuredClone(latest?.settings ?? {}), ...structuredClone(settings) },
        user: { id: author.id, email: author.loginEmail, name: `${author.firstName} ${author.lastName}` },
        updatedAt: new Date(now()).toISOString(),
      });
      return revision;
    },
    addReadinessReport(repoUrl, passed, evaluated) {
      const rng = serial('report');
      const reportId = rng.uuid();
      const createdAt = now();
      const repoId = `repo_${repoUrl.replace(/^https?:\/\/[^/]+\//, '').replace(/\//g, '_')}`;
      state.reports.unshift({
        reportId,
        repoId,
        createdAt,
        body: {
          reportId,
          createdAt,
          repoUrl,
          apps: { '.': { description: 'root' } },
          report: {
            scripted: {
              numerator: Math.min(passed, evaluated),
              denominator: Math.max(1, evaluated),
              rationale: 'scripted report',
            },
          },
          repoId,
        },
      });
      return reportId;
    },
    addMember(email) {
      const rng = serial('member');
      const id = `user_${rng.hex(16)}`;
      const at = new Date(now()).toISOString();
      const [first = 'New', last = 'Member'] = email.split('@')[0]!.split('.');
      state.users.push({
        id,
        email: email.toLowerCase(),
        loginEmail: email.toLowerCase(),
        firstName: first,
        lastName: last,
        role: 'Member',
        createdAt: at,
        lastSignInAt: at,
        activity: 0,
        clients: ['terminal-ui'],
        models: [],
        delegation: 'auto-medium',
        languages: [],
      });
      return id;
    },
    removeMember(who) {
      const user = findUser(state, who);
      state.users.splice(state.users.indexOf(user), 1);
      for (const [key, holder] of state.userByKey) if (holder === user) state.userByKey.delete(key);
    },
  };
}
