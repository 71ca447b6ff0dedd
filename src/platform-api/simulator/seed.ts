import { createRng, type Rng } from './random.js';
import type { ClientType, DelegationLevel, ModelTier } from '../schemas/analytics.js';

/**
 * The simulator's seeded organization: users with roles and keys, computers in every status, sessions
 * with messages, readiness reports across repositories, and enterprise-control revisions. Everything is a
 * pure function of the seed and the clock's start time, so tests can rely on it.
 */

export type Role = 'Owner' | 'Manager' | 'Member';

export interface SimUser {
  id: string;
  email: string | null;
  /** The address used in the organization list (users with a null analytics e-mail still have one here). */
  loginEmail: string;
  firstName: string;
  lastName: string;
  role: Role;
  createdAt: string;
  lastSignInAt: string;
  /** Probability of being active on a given day. */
  activity: number;
  clients: ClientType[];
  models: string[];
  delegation: DelegationLevel;
  languages: string[];
}

export interface SimStep {
  id: string;
  name: string;
  durationMs: number;
  /** When set, the step fails with this message once it has run. */
  failWith?: string | undefined;
  startAt?: number | undefined;
  installSessionId?: string | undefined;
}

export interface SimComputer {
  id: string;
  name: string;
  providerType: 'byom' | 'e2b';
  createdAt: number;
  hostId?: string | undefined;
  hostname?: string | undefined;
  remoteUser: string;
  repos: string[];
  autoInstallDeps: boolean;
  ownerId: string;
  ownerPrincipalKind: string;
  steps: SimStep[];
}

export interface SimSession {
  sessionId: string;
  status: 'idle' | 'pending' | 'running';
  title: string;
  createdAt: number;
  updatedAt: number;
  completedAt?: number | undefined;
  computerId?: string | undefined;
  sessionSettings: Record<string, unknown>;
  messages: Record<string, unknown>[];
}

export interface SimReport {
  reportId: string;
  repoId: string;
  createdAt: number;
  body: Record<string, unknown>;
}

export interface SimChange {
  revision: number;
  settings: Record<string, unknown>;
  user: { id: string; email: string; name: string };
  updatedAt: string;
}

export interface SimState {
  seed: string;
  orgId: string;
  users: SimUser[];
  keys: { owner: string; manager: string; member: string };
  userByKey: Map<string, SimUser>;
  computers: SimComputer[];
  sessions: Map<string, SimSession>;
  reports: SimReport[];
  changes: SimChange[];
  creditLimits: Map<string, number>;
  /** Standard credits added by a script (`simulator.script.addUsage`): day -> user id -> credits. */
  extraCredits: Map<string, Map<string, number>>;
  /** Counts objects created at run time, so their IDs are deterministic too. */
  serial: number;
}

export const MODELS: readonly { id: string; tier: ModelTier }[] = [
  { id: 'claude-sonnet-4-5-20250929', tier: 'standard' },
  { id: 'claude-opus-4-5-20251101', tier: 'thinking' },
  { id: 'gpt-5.1-codex', tier: 'thinking' },
  { id: 'gemini-3-pro-preview', tier: 'standard' },
  { id: 'glm-4.6', tier: 'standard' },
];

export const LANGUAGES: Readonly<Record<string, string>> = {
  TypeScript: '.ts',
  Python: '.py',
  Go: '.go',
  Rust: '.rs',
  Java: '.java',
  Markdown: '.md',
};

const FIRST = [
  'Ada',
  'Grace',
  'Alan',
  'Edsger',
  'Barbara',
  'Donald',
  'Frances',
  'Ken',
  'Margaret',
  'Linus',
  'Radia',
  'Dennis',
];
const LAST = [
  'Lovelace',
  'Hopper',
  'Turing',
  'Dijkstra',
  'Liskov',
  'Knuth',
  'Allen',
  'Thompson',
  'Hamilton',
  'Torvalds',
  'Perlman',
  'Ritchie',
];
const CLIENTS: readonly ClientType[] = ['terminal-ui', 'web', 'non-interactive-cli'];
const DELEGATION: readonly DelegationLevel[] = ['auto-high', 'auto-medium', 'auto-low', 'spec', 'manual'];
const REPOS = ['acme/api', 'acme/web', 'acme/infra', 'acme/mobile'];
const CRITERIA = [
  'lint_config',
  'unit_tests',
  'ci_pipeline',
  'readme',
  'type_checking',
  'dependency_pinning',
  'agents_md',
];

export const USER_COUNT = 42;
export const REPORT_COUNT = 57;
export const CHANGE_COUNT = 45;
const DAY_MS = 86_400_000;

function makeUsers(rng: Rng, seed: string, startMs: number): SimUser[] {
  const users: SimUser[] = [];
  for (let i = 0; i < USER_COUNT; i++) {
    const role: Role = i === 0 ? 'Owner' : i <= 3 ? 'Manager' : 'Member';
    const firstName = FIRST[i % FIRST.length]!;
    const lastName = LAST[(i * 5) % LAST.length]!;
    const loginEmail = `${firstName}.${lastName}${i}@acme.example`.toLowerCase();
    const clients = CLIENTS.filter((_, c) => c === 0 || rng.chance(0.4));
    const models = [MODELS[i % MODELS.length]!.id, ...(rng.chance(0.5) ? [rng.pick(MODELS).id] : [])];
    const languageNames = Object.keys(LANGUAGES);
    users.push({
      id: `user_${createRng(seed, 'user', i).hex(12)}`,
      // Documented quirk: user_email can be null in analytics rows (a deleted or SSO-only account).
      email: i === USER_COUNT - 1 ? null : loginEmail,
      loginEmail,
      firstName,
      lastName,
      role,
      createdAt: new Date(startMs - (400 - i) * DAY_MS).toISOString(),
      lastSignInAt: new Date(startMs - rng.int(0, 20) * DAY_MS - rng.int(0, DAY_MS)).toISOString(),
      activity: i < 4 ? 0.9 : 0.25 + rng.next() * 0.6,
      clients,
      models: [...new Set(models)],
      delegation: rng.pick(DELEGATION),
      languages: [...new Set([rng.pick(languageNames), rng.pick(languageNames)])],
    });
  }
  // Sorted by id: the analytics users cursor is a user ID.
  return users.sort((a, b) => (a.id < b.id ? -1 : 1));
}

const STEP_NAMES = {
  e2b: ['create-machine', 'clone-repos', 'install-deps'],
  byom: ['connect-host', 'clone-repos', 'install-deps'],
};

export function makeSteps(rng: Rng, provider: 'byom' | 'e2b', stepMs: number): SimStep[] {
  return STEP_NAMES[provider].map((name) => ({ id: `step_${rng.hex(10)}`, name, durationMs: stepMs }));
}

/** Schedules steps from `fromIndex` on, one after the other, starting at `atMs`. */
export function scheduleSteps(steps: SimStep[], fromIndex: number, atMs: number): void {
  let at = atMs;
  for (let i = fromIndex; i < steps.length; i++) {
    steps[i]!.startAt = at;
    at += steps[i]!.durationMs;
  }
}

function makeComputers(rng: Rng, users: SimUser[], startMs: number, stepMs: number): SimComputer[] {
  const owner = users.find((u) => u.role === 'Owner')!;
  const base = (name: string, provider: 'byom' | 'e2b', daysAgo: number): SimComputer => ({
    id: `cmp_${rng.hex(16)}`,
    name,
    providerType: provider,
    createdAt: startMs - daysAgo * DAY_MS,
    remoteUser: 'dev',
    repos: ['https://github.com/acme/api'],
    autoInstallDeps: true,
    ownerId: owner.id,
    ownerPrincipalKind: 'user',
    steps: makeSteps(rng, provider, stepMs),
  });
  const active = base('dev-box', 'e2b', 30);
  scheduleSteps(active.steps, 0, active.createdAt);
  const byom = base('gpu-runner', 'byom', 20);
  byom.hostId = rng.uuid();
  byom.hostname = 'gpu-runner.acme.internal';
  scheduleSteps(byom.steps, 0, byom.createdAt);
  // Waits for its host: stays provisioning until a PATCH sets hostId.
  const waiting = base('laptop-byom', 'byom', 1);
  const failed = base('broken-deps', 'e2b', 3);
  failed.repos = ['https://github.com/acme/fail-deps'];
  failed.steps[2]!.failWith = 'npm ci exited with code 1 (ERESOLVE unable to resolve dependency tree)';
  scheduleSteps(failed.steps, 0, failed.createdAt);
  for (const computer of [active, byom, failed]) {
    computer.steps[2]!.installSessionId = `sess_${rng.hex(16)}`;
  }
  return [active, byom, waiting, failed];
}

function makeSessions(rng: Rng, computers: SimComputer[], startMs: number): Map<string, SimSession> {
  const sessions = new Map<string, SimSession>();
  const statuses: SimSession['status'][] = ['idle', 'running', 'pending', 'idle', 'idle', 'running'];
  const titles = [
    'Fix flaky login test',
    'Add rate limiter',
    'Upgrade to Node 20',
    'Write API docs',
    'Refactor billing',
    'Triage CI failure',
  ];
  statuses.forEach((status, i) => {
    const sessionId = `sess_${rng.hex(16)}`;
    const createdAt = startMs - (i + 1) * 3_600_000;
    const messages: Record<string, unknown>[] = [];
    const count = rng.int(3, 8);
    let parentId: string | undefined;
    for (let m = 0; m < count; m++) {
      const id = `msg_${rng.hex(16)}`;
      const role = m % 2 === 0 ? 'user' : 'assistant';
      const at = createdAt + m * 60_000;
      messages.push({
        id,
        role,
        content: [
          {
            id: `blk_${rng.hex(8)}`,
            type: 'text',
            text: role === 'user' ? `Step ${m}: ${titles[i]}` : `Done with step ${m - 1}.`,
          },
        ],
        createdAt: at,
        updatedAt: at,
        ...(parentId ? { parentId } : {}),
        ...(role === 'user'
          ? { userMessageSource: rng.pick(['cli_tui', 'web', 'cli_exec'] as const) }
          : { vendorPhase: m === count - 1 ? 'final_answer' : 'commentary' }),
        visibility: 'both',
        isUserVisible: true,
        isError: false,
        tokenCount: rng.int(10, 4000),
      });
      parentId = id;
    }
    const input = rng.int(10_000, 900_000);
    const output = rng.int(1_000, 90_000);
    const usage = {
      inputTokens: input,
      outputTokens: output,
      cacheCreationTokens: 0,
      cacheReadTokens: Math.floor(input / 2),
      thinkingTokens: 0,
      serviceCredits: rng.int(1, 900),
    };
    sessions.set(sessionId, {
      sessionId,
      status,
      title: titles[i]!,
      createdAt,
      updatedAt: createdAt + count * 60_000,
      ...(status === 'idle' ? { completedAt: createdAt + count * 60_000 } : {}),
      ...(i < 2 ? { computerId: computers[i]!.id } : {}),
      sessionSettings: {
        model: MODELS[i % MODELS.length]!.id,
        assistantActiveTimeMs: rng.int(10_000, 3_600_000),
        tokenUsage: usage,
        // No child sessions in the seed: the inclusive usage equals the session's own.
        inclusiveTokenUsage: { ...usage },
        tags: i === 0 ? [{ name: 'team:platform', metadata: {} }] : [],
        enabledToolIds: [],
        disabledToolIds: [],
      },
      messages,
    });
  });
  return sessions;
}

function makeReports(rng: Rng, startMs: number): SimReport[] {
  const reports: SimReport[] = [];
  for (let i = 0; i < REPORT_COUNT; i++) {
    const repo = REPOS[i % REPOS.length]!;
    const createdAt = startMs - rng.int(1, 120) * DAY_MS - rng.int(0, DAY_MS);
    const report: Record<string, { numerator: number; denominator: number; rationale: string }> = {};
    for (const criterion of CRITERIA) {
      const denominator = rng.int(1, 4);
      report[criterion] = {
        numerator: rng.int(0, denominator),
        denominator,
        rationale: `${criterion} checked in ${denominator} app(s)`,
      };
    }
    const reportId = rng.uuid();
    reports.push({
      reportId,
      repoId: `repo_${repo.replace('/', '_')}`,
      createdAt,
      body: {
        reportId,
        createdAt,
        repoUrl: `https://github.com/${repo}`,
        apps: {
          '.': { description: `${repo} root` },
          ...(i % 3 === 0 ? { 'packages/core': { description: 'core library' } } : {}),
        },
        report,
        commitHash: rng.hex(40),
        branch: rng.pick(['main', 'main', 'develop']),
        hasLocalChanges: rng.chance(0.2),
        hasNonRemoteCommits: rng.chance(0.1),
        modelUsed: {
          id: rng.pick(MODELS).id,
          reasoningEffort: rng.pick(['low', 'medium', 'high', 'off'] as const),
        },
        agentVersion: `0.${rng.int(200, 230)}.${rng.int(0, 9)}`,
        // Not in the spec: the platform adds fields; clients must tolerate them.
        repoId: `repo_${repo.replace('/', '_')}`,
      },
    });
  }
  // Newest first, ties by reportId: the documented order of the simulator.
  return reports.sort((a, b) => b.createdAt - a.createdAt || (a.reportId < b.reportId ? -1 : 1));
}

function makeChanges(rng: Rng, users: SimUser[], startMs: number): SimChange[] {
  const admins = users.filter((u) => u.role !== 'Member');
  const changes: SimChange[] = [];
  const settings: Record<string, unknown> = {
    sessionDefaultSettings: { model: MODELS[0]!.id, specModeModel: MODELS[1]!.id },
    mcpAutonomyOverrides: {},
    cloudSessionSync: true,
    wikiCloudSync: false,
    includeCoAuthoredByAgent: true,
    enableAgentShield: false,
    ideAutoConnect: true,
    commandAllowlist: ['git status', 'npm test'],
    commandDenylist: ['rm -rf /'],
    customModels: [],
    modelPolicy: {
      allowedModelIds: [],
      blockedModelIds: [],
      allowedBaseUrls: [],
      allowCustomModels: false,
      allowAllFactoryModels: true,
      isFastModelsAllowed: true,
    },
    mcpPolicy: { enabled: true, allowlist: ['github', 'linear'] },
    missionPolicy: { restrictedAccess: false, allowedUserIds: [] },
    userModelPolicies: {},
    enabledPlugins: {},
    extraKnownMarketplaces: {},
    strictKnownMarketplaces: [],
    networkPolicy: { allowedIps: [] },
    sandbox: {
      enabled: false,
      filesystem: { allowWrite: [], allowRead: [], denyWrite: [], denyRead: [] },
      network: {
        allowedDomains: [],
        allowUnixSockets: [],
        allowAllUnixSockets: false,
        allowLocalBinding: false,
        httpProxyPort: 0,
        socksProxyPort: 0,
      },
    },
    restrictMemberVisibility: false,
    restrictApiKeyCreationToManagers: true,
    managedComputersEnabled: true,
    byomComputersEnabled: true,
    managedComputersAllowedEmails: [],
    byomComputersAllowedEmails: [],
    sessionRetentionDays: 90,
  };
  const toggles = [
    'cloudSessionSync',
    'wikiCloudSync',
    'includeCoAuthoredByAgent',
    'enableAgentShield',
    'ideAutoConnect',
    'restrictMemberVisibility',
  ];
  for (let revision = 1; revision <= CHANGE_COUNT; revision++) {
    const key = rng.pick(toggles);
    settings[key] = !settings[key];
    if (revision % 9 === 0) settings.sessionRetentionDays = 30 + revision;
    if (revision === 20) {
      settings.customModels = [
        {
          model: 'llama-3.3-70b',
          id: 'custom:llama',
          baseUrl: 'https://llm.acme.internal/v1',
          apiKey: '****',
          displayName: 'Llama (internal)',
          index: 0,
          maxContextLimit: 128000,
          maxOutputTokens: 8192,
          enableThinking: false,
          noImageSupport: true,
          extraHeaders: {},
          extraArgs: {},
        },
      ];
    }
    const author = admins[revision % admins.length]!;
    changes.push({
      revision,
      settings: structuredClone(settings),
      user: { id: author.id, email: author.loginEmail, name: `${author.firstName} ${author.lastName}` },
      updatedAt: new Date(startMs - (CHANGE_COUNT - revision + 1) * 2 * DAY_MS).toISOString(),
    });
  }
  // Newest revision first.
  return changes.reverse();
}

export function createState(seed: string, startMs: number, stepMs: number): SimState {
  const rng = createRng(seed, 'org');
  const users = makeUsers(rng, seed, startMs);
  const pickRole = (role: Role) => users.find((u) => u.role === role)!;
  const keys = {
    owner: `fk-sim-owner-${createRng(seed, 'key-owner').hex(24)}`,
    manager: `fk-sim-manager-${createRng(seed, 'key-manager').hex(24)}`,
    member: `fk-sim-member-${createRng(seed, 'key-member').hex(24)}`,
  };
  const userByKey = new Map<string, SimUser>([
    [keys.owner, pickRole('Owner')],
    [keys.manager, pickRole('Manager')],
    [keys.member, pickRole('Member')],
  ]);
  const computers = makeComputers(createRng(seed, 'computers'), users, startMs, stepMs);
  return {
    seed,
    orgId: `org_${createRng(seed, 'org-id').hex(12)}`,
    users,
    keys,
    userByKey,
    computers,
    sessions: makeSessions(createRng(seed, 'sessions'), computers, startMs),
    reports: makeReports(createRng(seed, 'reports'), startMs),
    changes: makeChanges(createRng(seed, 'changes'), users, startMs),
    creditLimits: new Map(),
    extraCredits: new Map(),
    serial: 0,
  };
}
