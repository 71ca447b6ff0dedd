import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The layers of src/, top to bottom (docs/architecture.md). A file may import from its own folder and from
// the layers below its own; never from a layer above, nor from another folder of its own row. Folders are
// named as in src/; `errors` and `paths` are the files src/errors.ts and src/paths.ts.
const LAYERS = [
  ['entry'],
  ['cli'],
  ['demo', 'api-commands'],
  ['explain'],
  ['doctor'],
  ['install', 'service'],
  ['settings-io'],
  ['daemon'],
  ['journal', 'spawner'],
  ['link'],
  ['hook-path'],
  ['remote', 'telemetry', 'watch'],
  ['channels'],
  ['notify'],
  ['ledger'],
  ['enrich'],
  ['platform-api'],
  ['runner'],
  ['config'],
  ['events'],
  ['agents'],
  ['terminal', 'errors', 'logging'],
  ['process'],
  ['util', 'paths'],
];
const ROOT_FILES = new Set(['errors', 'paths']);
/** How an import of a unit is spelled in a relative specifier (`../cli/main.js`, `./channels/x.js`). */
const importPattern = (unit) => (ROOT_FILES.has(unit) ? `**/${unit}.js` : `**/${unit}/**`);
const importRegex = (unit) => (ROOT_FILES.has(unit) ? `(^|/)${unit}\\.js$` : `(^|/)${unit}/`);
const filesOf = (unit) => (ROOT_FILES.has(unit) ? [`src/${unit}.ts`] : [`src/${unit}/**/*.ts`]);

// The daemon's server side is its own: install, doctor, explain and the CLI talk to it through src/link/,
// and import of src/daemon/ only its face, admin.ts (ask the running daemon, or read its files when it is
// down), and the CLI its entry for `hookd daemon run`; of its state (src/journal/) and its spawner
// (src/spawner/) nothing. A specifier is relative, so the rule is written
// per depth below src/ (`../daemon/` from src/cli/main.ts, `../../daemon/` from src/cli/commands/x.ts).
const DAEMON_FACE = {
  users: ['install', 'doctor', 'explain', 'cli', 'api-commands'],
  server: ['journal', 'spawner'],
  files: ['admin'],
  cli: ['lifecycle/main'],
};
const DAEMON_DEPTHS = [1, 2, 3, 4];
function daemonFaceRegex(unit, depth) {
  const allowed = [...DAEMON_FACE.files, ...(unit === 'cli' ? DAEMON_FACE.cli : [])].join('|');
  return `^(\\.\\./){${depth}}(daemon/(?!(${allowed})\\.js$)|(${DAEMON_FACE.server.join('|')})/)`;
}

function layerBlocks() {
  return LAYERS.flatMap((row, index) =>
    row.flatMap((unit) => {
      const banned = [...LAYERS.slice(0, index).flat(), ...row.filter((other) => other !== unit)];
      const message = `layering: src/${unit} may not import from a layer above it or beside it (docs/architecture.md)`;
      const dynamic = banned.map(importRegex).join('|');
      const block = (files, face) => ({
        files,
        rules: {
          'no-restricted-imports': [
            'error',
            {
              patterns: [
                ...(banned.length ? [{ group: banned.map(importPattern), message }] : []),
                ...(face ? [{ regex: face, message: FACE_MESSAGE }] : []),
              ],
            },
          ],
          ...(banned.length || face
            ? {
                'no-restricted-syntax': [
                  'error',
                  ...(banned.length
                    ? [
                        {
                          selector: `ImportExpression[source.value=/${dynamic.replaceAll('/', '\\/')}/]`,
                          message: `layering: src/${unit} may not import a layer above it or beside it (docs/architecture.md)`,
                        },
                      ]
                    : []),
                  ...(face
                    ? [
                        {
                          selector: `ImportExpression[source.value=/${face.replaceAll('/', '\\/')}/]`,
                          message: FACE_MESSAGE,
                        },
                      ]
                    : []),
                ],
              }
            : {}),
        },
      });
      if (!DAEMON_FACE.users.includes(unit)) return [block(filesOf(unit), undefined)];
      return DAEMON_DEPTHS.map((depth) =>
        block([`src/${unit}/${'*/'.repeat(depth - 1)}*.ts`], daemonFaceRegex(unit, depth)),
      );
    }),
  );
}
const FACE_MESSAGE =
  'daemon face: of src/daemon/ import only admin.ts (and the CLI lifecycle/main.ts); the rest goes through src/link/ (docs/architecture.md)';

// The hook path: what dist/hook.cjs and dist/client.cjs load on every agent event (scripts/build.mjs). Node
// built-ins only, and only files of the hook path; a type-only import loads nothing and is allowed.
const HOOK_PATH = {
  folders: ['hook-path', 'runner', 'events', 'logging', 'process', 'util'],
  files: {
    entry: ['hook'],
    config: ['load', 'loaded', 'load-fresh', 'trust', 'defaults', 'source-state'],
    link: ['client', 'daemon-argv', 'runtime-files', 'spool'],
    agents: [
      'ids',
      'protocols',
      'tool-kinds',
      'droid-protocol',
      'claude-protocol',
      'codex-protocol',
      'gemini-protocol',
      'cursor-protocol',
      'copilot-protocol',
      'copilot-dialect',
      'hook-rules',
      'agent-rules',
    ],
    '': ['paths'],
  },
};
const OFF_HOOK_PATH = [
  'entry',
  'cli',
  'demo',
  'explain',
  'doctor',
  'install',
  'service',
  'settings-io',
  'notify',
  'channels',
  'ledger',
  'enrich',
  'platform-api',
  'terminal',
  'config',
  'daemon',
  'link',
  'agents',
];
function hookPathRule(ownFolder) {
  const message =
    'hook path: Node built-ins and hook-path files only (docs/architecture.md, scripts/build.mjs)';
  const patterns = [
    {
      regex: '^(?!node:|\\.)',
      message: `${message}; no package is loaded on the hook path`,
      allowTypeImports: true,
    },
    { regex: '^\\.\\./errors\\.js$', message, allowTypeImports: true },
  ];
  for (const [folder, names] of Object.entries(HOOK_PATH.files)) {
    if (!folder) continue;
    const allowed = names.join('|');
    // From another folder (`../config/load.js`) and, for the listed files themselves, from their own folder.
    patterns.push({ regex: `(^|/)${folder}/(?!(${allowed})\\.js$)`, message, allowTypeImports: true });
    if (ownFolder === folder)
      patterns.push({ regex: `^\\./(?!(${allowed})\\.js$)`, message, allowTypeImports: true });
  }
  const notListed = OFF_HOOK_PATH.filter((folder) => !(folder in HOOK_PATH.files));
  patterns.push({ regex: `(^|/)(${notListed.join('|')})/`, message, allowTypeImports: true });
  return { '@typescript-eslint/no-restricted-imports': ['error', { patterns }] };
}
function hookPathBlocks() {
  const blocks = [
    { files: HOOK_PATH.folders.map((f) => `src/${f}/**/*.ts`), rules: hookPathRule(undefined) },
  ];
  for (const [folder, names] of Object.entries(HOOK_PATH.files))
    blocks.push({
      files: names.map((n) => `src/${folder ? `${folder}/` : ''}${n}.ts`),
      rules: hookPathRule(folder),
    });
  return blocks;
}

// One process module: src/process/ starts every process hookd runs (runProcess, runProcessSync,
// spawnDetached), so every start has a deadline, a group kill and bounded output. Only it and the bridge
// to the resident spawner (src/spawner/spawner.ts, which starts the spawner program and falls back
// to child_process) may load node:child_process; execa is not used (docs/architecture.md).
const PROCESS_MODULE = {
  allowed: ['src/process/**/*.ts', 'src/spawner/spawner.ts'],
  banned: new Set(['node:child_process', 'child_process', 'execa']),
  message:
    'process module: start processes through src/process/ (runProcess, runProcessSync, spawnDetached), not child_process or execa (docs/architecture.md)',
};
const processModuleRule = {
  meta: { type: 'problem', schema: [], messages: { banned: PROCESS_MODULE.message } },
  create(context) {
    const check = (source) => {
      if (source?.type === 'Literal' && PROCESS_MODULE.banned.has(source.value))
        context.report({ node: source, messageId: 'banned' });
    };
    const named = (callee, name) =>
      (callee.type === 'Identifier' && callee.name === name) ||
      (callee.type === 'MemberExpression' &&
        callee.property.type === 'Identifier' &&
        callee.property.name === name);
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
      // process.getBuiltinModule('node:child_process') and require('child_process') load it too.
      CallExpression: (node) => {
        if (named(node.callee, 'getBuiltinModule') || named(node.callee, 'require')) check(node.arguments[0]);
      },
    };
  },
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'hooks/**/*.sh'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextDecoder: 'readonly',
        TextEncoder: 'readonly',
        performance: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  {
    // Rules that need the types: a promise nobody awaits loses its error, and a switch over a union
    // that misses a member silently does nothing for it.
    files: ['src/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true, requireDefaultForNonUnion: false },
      ],
    },
  },
  ...layerBlocks(),
  ...hookPathBlocks(),
  {
    files: ['src/**/*.ts'],
    ignores: PROCESS_MODULE.allowed,
    plugins: { hookd: { rules: { 'process-module': processModuleRule } } },
    rules: { 'hookd/process-module': 'error' },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', __dirname: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
