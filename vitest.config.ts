import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

// Three groups: unit (pure modules), integration (real processes, sockets, files),
// e2e (the built CLI, and the real Droid CLI through the harness).
export default defineConfig({
  // hookd's version, as scripts/build.mjs defines it for the bundles (src/util/version.ts).
  define: { __HOOKD_VERSION__: JSON.stringify(version) },
  test: {
    setupFiles: ['test/setup.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
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
          fileParallelism: false,
        },
      },
    ],
  },
});
