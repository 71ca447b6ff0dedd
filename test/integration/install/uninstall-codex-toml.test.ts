import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli-run.js';
import { isolatedEnv, useTempDir } from '../../helpers/temp.js';

// hookd never edits Codex's config.toml, but Codex runs the hooks written there beside hooks.json's:
// `hookd uninstall --agent codex` must say which of its tables still run hookd and how to remove them.

const box = useTempDir('hkd-uncx-');
let env: Record<string, string>;
let codexHome: string;
const toml = () => join(codexHome, 'config.toml');
const hooksJson = () => join(codexHome, 'hooks.json');

interface Hooks {
  hooks: Record<string, { hooks: { command: string }[] }[]>;
}

/** config.toml with a hook of the user's own and hookd's PreToolUse and Stop entries as tables. */
function writeToml(): string {
  const installed = JSON.parse(readFileSync(hooksJson(), 'utf8')) as Hooks;
  const table = (event: string, command: string) =>
    `[[hooks.${event}]]\n[[hooks.${event}.hooks]]\ntype = "command"\ncommand = ${JSON.stringify(command)}\ntimeout = 60\n`;
  const text = [
    'model = "gpt-5.5"',
    '',
    table('PreToolUse', './my-guard.sh'),
    table('PreToolUse', installed.hooks.PreToolUse![0]!.hooks[0]!.command),
    table('Stop', installed.hooks.Stop![0]!.hooks[0]!.command),
    '[hooks.state."/somewhere/hooks.json:stop:0:0"]',
    'trusted_hash = "sha256:00"',
    '',
  ].join('\n');
  writeFileSync(toml(), text);
  return text;
}

interface StillWired {
  file: string;
  tables: { event: string; index: number }[];
}

describe('hookd uninstall --agent codex and hookd in config.toml', () => {
  beforeEach(async () => {
    codexHome = join(box.dir, 'home', '.codex');
    mkdirSync(codexHome, { recursive: true });
    env = isolatedEnv(box.dir, { CODEX_HOME: codexHome });
    const installed = await runCli(['install', '--agent', 'codex', '--transport', 'node'], { env });
    expect(installed.code, installed.stderr).toBe(0);
  });

  it('removes hookd from hooks.json, leaves config.toml as it is, and names the tables that still run hookd', async () => {
    const text = writeToml();
    const ran = await runCli(['uninstall', '--agent', 'codex'], { env });
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(readFileSync(hooksJson(), 'utf8'))).toEqual({});
    expect(readFileSync(toml(), 'utf8')).toBe(text);
    expect(ran.stdout).toContain(
      `hookd is still wired in ${toml()}: Codex CLI runs its tables [[hooks.PreToolUse]] (the 2nd), [[hooks.Stop]] (the 1st)`,
    );
    expect(ran.stdout).toMatch(/hookd does not edit that file: delete those tables by hand/);
  });

  it('with --json, and when hooks.json has nothing left to remove', async () => {
    writeToml();
    expect((await runCli(['uninstall', '--agent', 'codex'], { env })).code).toBe(0);
    const again = await runCli(['uninstall', '--agent', 'codex', '--json'], { env });
    expect(again.code, again.stderr).toBe(0);
    const result = JSON.parse(again.stdout) as {
      changed: boolean;
      stillWired: StillWired[];
      notes: string[];
    };
    expect(result.changed).toBe(false);
    expect(result.stillWired).toEqual([
      {
        file: toml(),
        layer: 'user',
        tables: [
          { event: 'PreToolUse', index: 1 },
          { event: 'Stop', index: 0 },
        ],
      },
    ]);
    expect(result.notes.join('\n')).toContain(`hookd is still wired in ${toml()}`);
    const text = await runCli(['uninstall', '--agent', 'codex'], { env });
    expect(text.stdout).toMatch(/nothing to change\n.*hookd is still wired in .*config\.toml/s);
  });

  it('says nothing of a config.toml without hookd, and names one it cannot read', async () => {
    writeFileSync(
      toml(),
      '[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "./mine.sh"\n',
    );
    const ran = await runCli(['uninstall', '--agent', 'codex', '--json'], { env });
    const result = JSON.parse(ran.stdout) as { stillWired: StillWired[]; notes: string[] };
    expect(result.stillWired).toEqual([]);
    expect(result.notes.join('\n')).not.toContain('config.toml');

    writeFileSync(toml(), '[[hooks.PreToolUse]\n');
    const broken = await runCli(['uninstall', '--agent', 'codex'], { env });
    expect(broken.code, broken.stderr).toBe(0);
    expect(broken.stdout).toMatch(
      /cannot read .*config\.toml \(.*line 1.*\): look for hookd's `\[\[hooks\.<Event>\]\]` tables there by hand/,
    );
  });
});
