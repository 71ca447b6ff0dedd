import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  findPackageRoot,
  loadDemoEvents,
  readRecordedStore,
  sessionSlug,
} from '../../../src/demo/demo-session.js';
import { createTranscriptFeeder } from '../../../src/demo/transcript-feeder.js';
import { REPO_DIR } from '../../helpers/fixtures.js';
import { MAIN, SUB, useTempDirs } from './helpers.js';

const SESSION_DIR = join(REPO_DIR, 'demo-session');

const temp = useTempDirs('hkd-demo-');

describe('the recorded session, moved to a new home', () => {
  const to = { home: '/tmp/hookd-demo-x1/home', cwd: '/tmp/hookd-demo-x1/home/projects/demo' };
  const slug = sessionSlug(to.cwd);

  it('loads the 19 payloads in order with every path in the new home', () => {
    const events = loadDemoEvents(SESSION_DIR, to);
    expect(events).toHaveLength(19);
    expect(events.map((e) => e.payload.hook_event_name)).toEqual([
      'SessionStart',
      'UserPromptSubmit',
      'PreToolUse',
      'Notification',
      'PostToolUse',
      'PreToolUse',
      'Notification',
      'PostToolUse',
      'PreToolUse',
      'SessionStart',
      'UserPromptSubmit',
      'Stop',
      'SessionEnd',
      'SubagentStop',
      'PostToolUse',
      'Stop',
      'SessionStart',
      'PreCompact',
      'SessionEnd',
    ]);
    for (const e of events) {
      expect(e.raw, e.file).not.toContain('/home/dev');
      expect(e.raw, e.file).not.toContain('-home-dev-');
      expect(e.payload.cwd).toBe(to.cwd);
      expect(e.payload.transcript_path).toBe(
        `${to.home}/.factory/sessions/${slug}/${String(e.payload.session_id)}.jsonl`,
      );
    }
  });

  it('copies the session store with the sessions folder renamed and its contents rewritten', () => {
    const store = readRecordedStore(join(SESSION_DIR, 'factory-home'), to);
    expect(store.map((f) => f.path)).toContain(`sessions/${slug}/${MAIN}.jsonl`);
    expect(store.map((f) => f.path)).toContain(`sessions/${slug}/${SUB}.settings.json`);
    expect(store.map((f) => f.path)).toContain('cache/session-discovery-index.json');
    for (const file of store) {
      expect(file.path).not.toContain('-home-dev-');
      expect(file.text, file.path).not.toContain('/home/dev');
    }
    const index = JSON.parse(store.find((f) => f.path.endsWith('discovery-index.json'))!.text) as {
      entries: Record<string, { sessionPath: string; cwd: string }>;
    };
    expect(index.entries[MAIN]).toMatchObject({
      sessionPath: `${to.home}/.factory/sessions/${slug}/${MAIN}.jsonl`,
      cwd: to.cwd,
    });
  });

  it('finds the package holding demo/ from the source and from a bundle folder, and nothing elsewhere', () => {
    expect(findPackageRoot(join(REPO_DIR, 'src', 'demo'))).toBe(REPO_DIR);
    expect(findPackageRoot(join(REPO_DIR, 'dist'))).toBe(REPO_DIR);
    expect(findPackageRoot(temp())).toBeUndefined();
  });
});

describe('the transcript feeder', () => {
  it('writes a transcript up to where the agent ran each hook, and leaves dropped lines out', () => {
    const dir = temp();
    const text = readFileSync(
      join(SESSION_DIR, 'factory-home', 'sessions', '-home-dev-projects-demo', `${SUB}.jsonl`),
      'utf8',
    );
    const path = join(dir, 'sessions', 'slug', `${SUB}.jsonl`);
    const finalMessage = 'b73abe42-9177-4f7a-9932-5ff2a01cc296';
    const feeder = createTranscriptFeeder([{ sessionId: SUB, path, text }], new Set([finalMessage]));
    const written = () =>
      existsSync(path)
        ? readFileSync(path, 'utf8')
            .trimEnd()
            .split('\n')
            .map(
              (line) =>
                JSON.parse(line) as { type: string; id?: string; message?: { hookEventName?: string } },
            )
        : [];

    feeder.before(SUB, 'SessionStart');
    expect(written().map((l) => l.type)).toEqual(['session_start']);

    feeder.before(SUB, 'UserPromptSubmit');
    expect(written().at(-1)?.message?.hookEventName).toBe('SessionStart');

    feeder.before(SUB, 'Stop');
    const beforeStop = written();
    expect(beforeStop.at(-1)?.id).toBe('18e5db00-0383-4438-aa78-3a982e3f3ed7'); // the task prompt
    expect(beforeStop.some((l) => l.message?.hookEventName === 'Stop')).toBe(false);

    feeder.before('another-session', 'Stop'); // not a transcript of the feeder: nothing happens
    feeder.finish();
    const all = written();
    expect(all.at(-1)?.message?.hookEventName).toBe('SessionEnd');
    expect(all.map((l) => l.id)).not.toContain(finalMessage);
    expect(all).toHaveLength(text.trimEnd().split('\n').length - 1);
  });
});
