import { execFileSync } from 'node:child_process';
import { closeSync, constants, cpSync, mkdirSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readGitInfo } from '../../../src/enrich/git-branch.js';
import { readJsonFileBounded } from '../../../src/enrich/read-bounded.js';
import { readTranscript } from '../../../src/enrich/read-transcript.js';
import { readLocalSession } from '../../../src/enrich/session-store.js';
import { scanLedger } from '../../../src/ledger/ledger-file.js';
import { loadTrackerSnapshot } from '../../../src/ledger/tracker.js';
import { makeTempDir } from '../../helpers/temp.js';
import { CLAUDE_TRANSCRIPT, MAIN_SESSION, SESSION_DIR, makeTempHome, type TempHome } from './fixture-home.js';

// Every one of these reads would wait forever for a writer if it opened the FIFO as a plain file; here
// each comes back at once with what could be read and a warning.

const fifos: string[] = [];
const fifo = (path: string) => {
  execFileSync('mkfifo', [path]);
  fifos.push(path);
};
/** Opens and closes each FIFO for writing: a reader stuck in open() on one (a failing run) is let go. */
function releaseFifos(): void {
  for (const path of fifos.splice(0)) {
    try {
      closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {}
  }
}

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  releaseFifos();
  await home.cleanup();
});

describe('files an event names that are FIFOs, devices or directories', () => {
  it('a FIFO as the transcript: a warning, nothing read', async () => {
    const path = join(home.factoryHome, SESSION_DIR, 'fifo.jsonl');
    fifo(path);
    const read = await readTranscript(path, { maxReadBytes: 1 << 20, maxScanBytes: 0 });
    expect(read.warnings).toEqual(['transcript not a regular file (a FIFO, device or socket is never read)']);
    expect(read.bytesRead).toBe(0);
    const info = await readLocalSession({ sessionId: 'fifo', transcriptPath: path });
    expect(info.warnings).toContain('transcript not a regular file (a FIFO, device or socket is never read)');
  });

  it('a character device as the transcript is refused the same way', async () => {
    const read = await readTranscript('/dev/zero', { maxReadBytes: 1 << 20, maxScanBytes: 0 });
    expect(read.warnings).toEqual(['transcript not a regular file (a FIFO, device or socket is never read)']);
  });

  it('a FIFO as the settings file beside a readable transcript: the transcript is still read', async () => {
    const settings = join(home.factoryHome, SESSION_DIR, `${MAIN_SESSION}.settings.json`);
    rmSync(settings);
    fifo(settings);
    const info = await readLocalSession({
      sessionId: MAIN_SESSION,
      transcriptPath: home.transcript(MAIN_SESSION),
    });
    expect(info.title).toBe('OK');
    expect(info.sources).toEqual(['transcript']);
    expect(info.warnings).toContain(
      'session settings not a regular file (a FIFO, device or socket is never read)',
    );
  });

  it('a FIFO as the discovery index', async () => {
    const index = join(home.factoryHome, 'cache', 'session-discovery-index.json');
    rmSync(index);
    fifo(index);
    const info = await readLocalSession({ sessionId: 'nowhere', factoryHome: home.factoryHome });
    expect(info.warnings).toContain(
      'session index not a regular file (a FIFO, device or socket is never read)',
    );
  });

  it("FIFOs as a Claude sub-agent's transcript and .meta.json: the session's own usage is still counted", async () => {
    const dir = join(home.root, 'claude', 'projects', '-work');
    mkdirSync(join(dir, 's1', 'subagents'), { recursive: true });
    cpSync(CLAUDE_TRANSCRIPT, join(dir, 's1.jsonl'));
    fifo(join(dir, 's1', 'subagents', 'agent-a1.jsonl'));
    fifo(join(dir, 's1', 'subagents', 'agent-a1.meta.json'));
    const info = await readLocalSession({
      sessionId: 's1',
      transcriptPath: join(dir, 's1.jsonl'),
      agentId: 'a1',
    });
    expect(info.tokens?.total).toBeGreaterThan(0);
    expect(info.subagent).toBeUndefined();
    expect(info.warnings).toContain(
      'sub-agent transcript agent-a1.jsonl not counted: transcript not a regular file (a FIFO, device or socket is never read)',
    );
  });

  it('a FIFO as a JSON file, and one over the limit', async () => {
    const path = join(home.root, 'x.json');
    fifo(path);
    expect(await readJsonFileBounded(path, 100)).toEqual({
      ok: false,
      reason: 'not a regular file (a FIFO, device or socket is never read)',
      bytes: 0,
    });
    const big = join(home.root, 'big.json');
    writeFileSync(big, JSON.stringify({ x: 'y'.repeat(200) }));
    expect(await readJsonFileBounded(big, 100)).toMatchObject({
      ok: false,
      reason: /^too big \(\d+ bytes, limit 100\)$/,
    });
  });

  it("a FIFO as a repository's .git/HEAD: the root is known, the branch is not", () => {
    const repo = join(home.root, 'repo');
    mkdirSync(join(repo, '.git'), { recursive: true });
    fifo(join(repo, '.git', 'HEAD'));
    expect(readGitInfo(repo)).toEqual({ root: repo });
  });
});

describe("hookd's own files replaced by FIFOs", () => {
  it('the ledger: an error, not a hang; the open-sessions snapshot: empty', async () => {
    const { dir, cleanup } = makeTempDir();
    try {
      fifo(join(dir, 'sessions.jsonl'));
      await expect(scanLedger(join(dir, 'sessions.jsonl'), () => {})).rejects.toThrow(/not a regular file/);
      fifo(join(dir, 'open-sessions.json'));
      expect(await loadTrackerSnapshot(join(dir, 'open-sessions.json'))).toEqual({ v: 1, sessions: [] });
    } finally {
      cleanup();
    }
  });
});
