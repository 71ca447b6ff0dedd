import { ESLint, type Linter } from 'eslint';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_DIR } from '../helpers/fixtures.js';

// The layering of src/ (docs/architecture.md) is enforced by eslint.config.js; these tests prove the rules
// bite, on a few small source texts. `npm run lint` (part of `npm run check` and `npm test`) applies them to
// the whole of src/.

const LAYER_RULES = new Set([
  'no-restricted-imports',
  'no-restricted-syntax',
  '@typescript-eslint/no-restricted-imports',
  'hookd/process-module',
]);

// The texts are not files of the TypeScript project, so the rules that need its types are off here
// (they cannot see a text that is not on disk, and they are not what these tests are about).
const WITHOUT_TYPES: Linter.Config = {
  files: ['src/**/*.ts'],
  languageOptions: { parserOptions: { projectService: false } },
  rules: {
    '@typescript-eslint/no-floating-promises': 'off',
    '@typescript-eslint/switch-exhaustiveness-check': 'off',
  },
};

async function lintAs(path: string, code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: REPO_DIR, overrideConfig: WITHOUT_TYPES });
  const [result] = await eslint.lintText(code, { filePath: join(REPO_DIR, path) });
  return result!.messages.filter((m) => m.ruleId && LAYER_RULES.has(m.ruleId)).map((m) => m.message);
}

describe('layering', () => {
  it('rejects a lower layer importing a higher one', async () => {
    const messages = await lintAs(
      'src/config/back-edge.ts',
      "import { buildCli } from '../cli/main.js';\nexport const cli = buildCli;\n",
    );
    expect(messages).toEqual([
      expect.stringMatching(/'\.\.\/cli\/main\.js'.*layering: src\/config may not import/),
    ]);
  }, 30_000);

  it('rejects a dynamic import of a higher layer, and notify/ importing its channels', async () => {
    expect(
      await lintAs('src/notify/back-edge.ts', "export const load = () => import('../daemon/main.js');\n"),
    ).toEqual([expect.stringContaining('layering: src/notify')]);
    expect(
      await lintAs(
        'src/notify/back-edge.ts',
        "export { buildChannels } from '../channels/build-channels.js';\n",
      ),
    ).toEqual([expect.stringContaining('layering: src/notify')]);
  }, 30_000);

  it.each([
    [
      'src/cli/commands/x.ts',
      "import { DaemonStore } from '../../journal/store.js';\nexport const s = DaemonStore;\n",
    ],
    [
      'src/doctor/checks/hook/x.ts',
      "export const f = () => import('../../../daemon/listen/fast-server.js');\n",
    ],
    [
      'src/install/x.ts',
      "import { daemonMain } from '../daemon/lifecycle/main.js';\nexport const m = daemonMain;\n",
    ],
    ['src/explain/x.ts', "export { defaultSpawnerPath } from '../spawner/spawner.js';\n"],
  ])(
    'keeps the daemon server side out of %s: only its face, admin.ts',
    async (path, code) => {
      expect(await lintAs(path, code)).toEqual([expect.stringContaining('daemon face')]);
    },
    30_000,
  );

  it('lets the CLI, doctor and explain use the daemon face and their own folders named daemon', async () => {
    const code = [
      "import { daemonState } from '../../daemon/admin.js';",
      "import type { DaemonView } from '../daemon/daemon-view.js';",
      'export const all = [daemonState];',
      'export type View = DaemonView;',
      '',
    ].join('\n');
    expect(
      await lintAs(
        'src/doctor/checks/notify/x.ts',
        code.replace("'../../daemon/admin.js'", "'../../../daemon/admin.js'"),
      ),
    ).toEqual([]);
    expect(
      await lintAs(
        'src/cli/commands/x.ts',
        "export const run = () => import('../../daemon/lifecycle/main.js');\n",
      ),
    ).toEqual([]);
  }, 30_000);

  it('keeps packages and off-path files out of the hook path; type-only imports load nothing', async () => {
    const messages = await lintAs(
      'src/runner/back-edge.ts',
      [
        "import * as z from 'zod';",
        "import { hooksSchema } from '../config/schema.js';",
        "import type { HookdConfig } from '../config/schema.js';",
        "import { loadConfig } from '../config/load.js';",
        'export const all = [z, hooksSchema, loadConfig];',
        'export type Config = HookdConfig;',
        '',
      ].join('\n'),
    );
    expect(messages).toEqual([
      expect.stringMatching(/^'zod'.*hook path/),
      expect.stringMatching(/^'\.\.\/config\/schema\.js'.*hook path/),
    ]);
  }, 30_000);

  it("lets the hook path load only the agents' data, and keeps agents/ below events/", async () => {
    const hookPath = await lintAs(
      'src/runner/agent-data.ts',
      [
        "import { MATCHERS } from '../agents/protocols.js';",
        "import { ADAPTERS } from '../agents/registry.js';",
        "import type { AgentAdapter } from '../agents/types.js';",
        'export const all = [MATCHERS, ADAPTERS];',
        'export type A = AgentAdapter;',
        '',
      ].join('\n'),
    );
    expect(hookPath).toEqual([expect.stringMatching(/^'\.\.\/agents\/registry\.js'.*hook path/)]);
    const backEdge = await lintAs(
      'src/agents/back-edge.ts',
      "import { parseEvent } from '../events/parse.js';\nexport const p = parseEvent;\n",
    );
    expect(backEdge).toEqual([expect.stringMatching(/layering: src\/agents may not import/)]);
  }, 30_000);

  it.each([
    ['src/doctor/x.ts', "import { spawn } from 'node:child_process';\nexport const s = spawn;\n"],
    ['src/runner/x.ts', "export const s = () => process.getBuiltinModule('node:child_process').spawn;\n"],
    ['src/service/x.ts', "import { execa } from 'execa';\nexport const e = execa;\n"],
    ['src/link/x.ts', "export const m = () => import('child_process');\n"],
  ])(
    'starts no process outside the process module: %s',
    async (path, code) => {
      expect(await lintAs(path, code)).toEqual([expect.stringContaining('process module')]);
    },
    30_000,
  );

  it('lets the process module and the spawner bridge load child_process', async () => {
    const code = "import { spawn } from 'node:child_process';\nexport const s = spawn;\n";
    expect(await lintAs('src/process/x.ts', code)).toEqual([]);
    expect(await lintAs('src/spawner/spawner.ts', code)).toEqual([]);
  }, 30_000);
});
