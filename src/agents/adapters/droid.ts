import { homedir } from 'node:os';
import { join } from 'node:path';
import { DROID_EVENTS, DROID_PROTOCOL, DROID_TOOLS } from '../droid-protocol.js';
import { SHARED_CANONICAL_EVENTS } from './shared-events.js';
import { isFile, projectIsHome } from './settings-files.js';
import type { AgentAdapter, HooksFileRef, SettingsLayer } from '../types.js';

/** The name of Droid's hooks file in a `.factory` folder. */
export const DROID_HOOKS_JSON = 'hooks.json';

/**
 * The hooks file Droid reads in a `.factory` folder: `hooks.json`, or the older `hooks/hooks.json` when
 * `hooks.json` is not a file and that one is (Droid 0.225.2 `loadHooksFromHooksJson`; Droid moves the
 * older one aside the next time it saves hooks).
 */
export function droidHooksJsonFile(factoryDir: string): string {
  const current = join(factoryDir, DROID_HOOKS_JSON);
  const legacy = join(factoryDir, 'hooks', DROID_HOOKS_JSON);
  return !isFile(current) && isFile(legacy) ? legacy : current;
}

/** The Factory Droid CLI (docs/agents/droid.md). */
export const DROID: AgentAdapter = {
  ...DROID_PROTOCOL,
  displayName: 'Droid',
  ...DROID_TOOLS,
  canonicalEvents: {
    ...SHARED_CANONICAL_EVENTS,
  },
  settings: {
    dirName: '.factory',
    writableLayers: ['user', 'project'],
    // Per level (user, then a project that is not the home folder): settings.json's `hooks`, then hooks.json.
    files({ home, project }) {
      const levels: [SettingsLayer, string][] = [['user', join(home, '.factory')]];
      if (!projectIsHome(project, home)) levels.push(['project', join(project, '.factory')]);
      return levels.flatMap(([layer, dir]): HooksFileRef[] => [
        { layer, kind: 'settings', file: join(dir, 'settings.json') },
        { layer, kind: 'hooks-json', file: droidHooksJsonFile(dir) },
      ]);
    },
    // Droid 0.225.2 rejects every hook type but "command".
    hookTypes: { command: 'command' },
    // Keys of the hooks object that are not events: booleans (Droid 0.225.2's hooks schema); anything else
    // there makes Droid reject the whole hooks object. `hooksDisabled: true` switches every hook off.
    switches: ['hooksDisabled', 'showHookOutput'],
    dedupesAcrossFiles: false,
  },
  install: {
    defaultEvents: DROID_EVENTS,
    // hookd answers within its own 55 s event budget; Droid's default is 60 s.
    timeouts: { unit: 's', agentDefault: 60, installDefault: 60, max: 3600, teardown: [] },
    readsHooksOf: ['claude'],
    // Droid 0.225.2 exports OTLP/HTTP JSON metrics to OTEL_EXPORTER_OTLP_ENDPOINT, but reads an `env`
    // block only from its organization's managed settings, never from the user's settings.json.
    otelByHand: (endpoint, tokenFile) => ({
      why: "Droid reads no `env` from its settings, so hookd cannot switch on Droid's telemetry there",
      instead: `Start droid with OTEL_EXPORTER_OTLP_ENDPOINT=${endpoint} and OTEL_EXPORTER_OTLP_HEADERS set to the receiver's bearer header (its token is in ${tokenFile}) in its environment, and leave out --otel: docs/telemetry.md, "Droid", has the two lines.`,
    }),
  },
  sessions: {
    transcriptFormat: 'droid-jsonl',
    root: (env, home) => env.FACTORY_HOME || join(home || homedir(), '.factory'),
    ownsTranscript: (path) => path.includes('/.factory/'),
    slug: (cwd) => cwd.replace(/[\\/]/g, '-'),
  },
  doctor: {
    logFolder: 'logs',
    logExt: '.log',
    logMarkers: ['Invalid hooks in settings.json, ignoring', 'Invalid hooks file, ignoring'],
  },
  fixtures: { folder: 'droid-0.225.2', version: '0.225.2' },
  docs: 'docs/agents/droid.md',
};
