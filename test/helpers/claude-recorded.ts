import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseEvent } from '../../src/events/parse.js';
import type { HookEvent } from '../../src/events/types.js';

const HERE = dirname(fileURLToPath(import.meta.url));

/** The real Claude Code 2.1.330 payloads and session stores, copied into the repo. */
export const CLAUDE_FIXTURES_DIR = resolve(HERE, '..', 'fixtures', 'claude-code-2.1.330');
export const CLAUDE_SCENARIOS = ['auto', 'extras', 'print', 'stream', 'tui'] as const;
export type ClaudeScenario = (typeof CLAUDE_SCENARIOS)[number];

/** The recorded HOME of the payloads' paths (`/home/dev/.claude/...`). */
export const RECORDED_CLAUDE_HOME = '/home/dev/.claude';

/** The scenario's recorded `~/.claude` (its `projects/<slug>/` transcripts). */
export function claudeHomeOf(scenario: ClaudeScenario): string {
  return join(CLAUDE_FIXTURES_DIR, scenario, 'claude-home');
}

export interface RecordedClaudeEvent {
  file: string;
  /** The hook's stdin bytes, with `/home/dev/.claude` pointing at `claudeHome`. */
  raw: string;
  /** What hookd's hook made of them with the environment Claude Code gave the hook. */
  event: HookEvent;
  /** The variables Claude Code added to the hook's environment (CLAUDE_PROJECT_DIR...). */
  env: Record<string, string>;
}

/**
 * A scenario's hook invocations in the order they finished, each parsed the way `hookd hook` parses it
 * (with the environment Claude Code gave that hook, from captures.jsonl), at `startMs + n * stepMs`.
 */
export function recordedClaudeEvents(
  scenario: ClaudeScenario,
  options: { claudeHome?: string; startMs?: number; stepMs?: number } = {},
): RecordedClaudeEvent[] {
  const dir = join(CLAUDE_FIXTURES_DIR, scenario);
  const home = options.claudeHome ?? claudeHomeOf(scenario);
  const captures = new Map<string, Record<string, string>>();
  for (const line of readFileSync(join(dir, 'captures.jsonl'), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const c = JSON.parse(line) as { file: string; env_added_by_claude: Record<string, string> };
    captures.set(c.file, c.env_added_by_claude);
  }
  const files = readdirSync(dir)
    .filter((f) => /^\d\d-.*\.json$/.test(f))
    .sort();
  return files.map((file, n) => {
    const raw = readFileSync(join(dir, file), 'utf8').split(RECORDED_CLAUDE_HOME).join(home);
    const env = captures.get(file) ?? {};
    const parsed = parseEvent(raw, env, {
      now: () => (options.startMs ?? 1_795_444_900_000) + n * (options.stepMs ?? 1000),
      id: () => `${scenario}-${file}`,
    });
    if (!parsed.ok) throw new Error(`${scenario}/${file}: ${parsed.detail}`);
    return { file, raw, event: parsed.event, env };
  });
}

/** One recorded event by file name prefix (`17-Stop`). */
export function recordedClaudeEvent(scenario: ClaudeScenario, prefix: string): HookEvent {
  const found = recordedClaudeEvents(scenario).find((e) => e.file.startsWith(prefix));
  if (!found) throw new Error(`no ${prefix} in ${scenario}`);
  return found.event;
}
