import { cp, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HookEvent } from '../../../src/events/types.js';
import { FIXTURES_DIR, REPO_DIR } from '../../helpers/fixtures.js';

/** The real store captured from Droid 0.225.2; read-only: tests work on a copy. */
export const FIXTURES = FIXTURES_DIR;
export const MAIN_SESSION = '48e23316-6280-4a11-966d-13493854823f';
export const SUB_SESSION = '9414a522-3430-47b5-9f03-3dfadc677129';
export const COMPACTED_SESSION = '38467040-96b6-4e45-bf6d-91edf75b2209';
export const SESSION_DIR = 'sessions/-home-dev-projects-demo';
/** A real Claude Code 2.1.330 transcript with assistant usage (read-only: tests copy it). */
export const CLAUDE_TRANSCRIPT = join(
  REPO_DIR,
  'test',
  'fixtures',
  'claude-code-2.1.330-interrupt',
  'fd3c71a9-e4e7-4219-96e4-248125a3a539.jsonl',
);

export interface TempHome {
  root: string;
  home: string;
  factoryHome: string;
  transcript(sessionId: string): string;
  /** A fixture payload (jsonrpc/<file>) as a HookEvent with its paths moved into the temp home. */
  event(file: string): Promise<HookEvent>;
  cleanup(): Promise<void>;
}

/** Copy the fixture factory home into a fresh temp HOME (`<tmp>/home/.factory`). */
export async function makeTempHome(): Promise<TempHome> {
  const root = await mkdtemp(join(tmpdir(), 'hookd-enrich-'));
  const home = join(root, 'home');
  const factoryHome = join(home, '.factory');
  await cp(join(FIXTURES, 'factory-home'), factoryHome, { recursive: true });
  const transcript = (id: string) => join(factoryHome, SESSION_DIR, `${id}.jsonl`);
  let counter = 0;
  return {
    root,
    home,
    factoryHome,
    transcript,
    async event(file) {
      const raw = await readFile(join(FIXTURES, 'jsonrpc', file), 'utf8');
      const payload = JSON.parse(raw.replaceAll('/home/dev/', `${home}/`)) as Record<string, unknown>;
      return {
        id: `ev-${++counter}`,
        receivedAt: 1_795_347_156_000 + counter * 100,
        agent: 'droid',
        name: String(payload.hook_event_name),
        sessionId: payload.session_id as string,
        cwd: payload.cwd as string,
        transcriptPath: payload.transcript_path as string,
        payload,
      };
    },
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

/** The jsonrpc fixture payload files, in order. */
export async function fixtureEventFiles(): Promise<string[]> {
  return (await readdir(join(FIXTURES, 'jsonrpc'))).filter((f) => f.endsWith('.json')).sort();
}
