import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { setAsideCaCerts } from './test/harness/registry-env.js';

const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

// Four groups: unit (pure modules), integration (real processes, sockets, files), heavy (integration
// tests that start hundreds of processes or fuzz through real processes: `*.heavy.test.ts`), e2e (the
// built CLI, and the real agent CLIs through the harness). The quick tier (`npm run test:quick`) is unit
// and integration; `npm test` runs all four (docs/development.md, "Tests").
const HEAVY = 'test/integration/**/*.heavy.test.ts';

// NODE_EXTRA_CA_CERTS (set where the npm registry is reached through a proxy with its own certificate
// authority) makes every Node process read that bundle as it starts, and the tests start thousands of
// them, none of which talks TLS. It is taken out of the environment here, before vitest starts a worker,
// and given back only to the steps that fetch from the registry (test/harness/registry-env.ts).
setAsideCaCerts();
export default defineConfig({
  // hookd's version, as scripts/build.mjs defines it for the bundles (src/util/version.ts).
  define: { __HOOKD_VERSION__: JSON.stringify(version) },
  test: {
    setupFiles: ['test/setup.ts'],
    // One test file per core, and at least two: integration files spend most of their time waiting on
    // the processes they start (vitest's default, one fewer than the cores, leaves one of two idle).
    maxWorkers: Math.max(2, availableParallelism()),
    // `npm run coverage`: the share of src/ that the unit and integration tests execute in vitest's own
    // workers. Code they run in child processes (the built dist/ bundles) is not counted.
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      reporter: ['text-summary', 'html'],
      reportsDirectory: 'coverage',
    },
    projects: [
      {
        extends: true,
        // Pure modules share one module graph per worker: no per-file isolation (test/setup.ts is safe to
        // run more than once in a worker).
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], isolate: false },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          exclude: [HEAVY],
          // One module graph per worker, as for unit: importing hookd's modules again for every file
          // took more of a worker's time than many files' tests.
          isolate: false,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'heavy',
          include: [HEAVY],
          // Each starts hundreds of processes or fuzzes for seconds of CPU: after all the other files, so
          // that they share the cores with no other file, and one per core among themselves (most keep
          // one core busy; their fixed case counts still finish well inside their time caps).
          sequence: { groupOrder: 1 },
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          // Installs the pinned agent binaries (cache outside the repo) and says which agent tests run.
          globalSetup: ['test/harness/e2e-setup.ts'],
          testTimeout: 300_000,
          hookTimeout: 600_000,
          // Side by side with the unit and integration files, one per core like them: an agent run
          // mostly waits (on its fake model, its hooks, its own start), and one e2e file at a time left
          // more than half of two cores idle. Each run has its own folders, namespaces and daemon.
        },
      },
    ],
  },
});
