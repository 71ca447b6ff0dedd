import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { AGENT_IDS } from '../../../src/agents/ids.js';
import { REPO_DIR } from '../../helpers/fixtures.js';

// Agent knowledge lives in src/agents/ (docs/agents/README.md): elsewhere, code asks the adapter or
// iterates the registry instead of comparing an agent id. These are the places that still spell one, with
// why; a new one fails here (move the knowledge into the adapter), and a place that no longer spells one
// must leave the list.
const ALLOWED: Readonly<Record<string, { count: number; why: string }>> = {
  'src/cli/commands/run/emit.ts': {
    count: 9,
    why: "Claude Code ends its payload with a newline; built Codex and Gemini events take their transcript paths and tool names, Copilot's are Claude Code's (to move into the adapters)",
  },
  'src/remote/answers.ts': {
    count: 1,
    why: "a remote allow is answered only through Claude Code's PermissionRequest; other agents may only be denied",
  },
  'src/hook-path/remote-ask.ts': {
    count: 1,
    why: 'only Claude Code lets a hook answer its permission prompt',
  },
  'src/enrich/codex-gemini-session.ts': {
    count: 2,
    why: "'gemini' is the type of the model's messages in Gemini CLI's chat file, not the agent id",
  },
  'src/runner/decision.ts': {
    count: 1,
    why: "Gemini CLI's own decision words",
  },
  'src/doctor/checks/agent/check-agent-settings.ts': {
    count: 4,
    why: "doctor's advice for each agent's own switches and files (hooks.json, the hooks object)",
  },
  'src/doctor/checks/agent/check-claude-log.ts': { count: 1, why: "reads Claude Code's own debug log" },
  'src/doctor/checks/agent/check-droid-log.ts': { count: 1, why: "reads Droid's own log" },
  'src/doctor/checks/agent/drill.ts': {
    count: 4,
    why: "the drill builds each agent's own before-tool call: Droid's and Claude Code's sample payloads, a plain one for the others",
  },
  'src/doctor/run-doctor.ts': {
    count: 2,
    why: "the checks only one agent has: Droid's hooks.json shadowing, Claude Code's remote answers",
  },
  'src/events/sample.ts': { count: 9, why: "the sample payloads of each agent's recorded shape" },
  'src/install/agent-hooks.ts': {
    count: 1,
    why: 'how each agent validates an unknown event key (Droid ignores it; Claude Code skips per event)',
  },
  'src/install/effective-hooks.ts': { count: 1, why: "Droid's hooksDisabled, resolved across its files" },
  'src/install/settings-level.ts': { count: 3, why: "Droid's hooks.json beside its settings.json" },
};

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The string literals of a source file that are exactly an agent id (comments and longer texts aside). */
function agentLiterals(path: string): number {
  const text = readFileSync(path, 'utf8');
  // Parse only the files that could hold one: an id between quotes of some kind.
  if (!AGENT_IDS.some((id) => ["'", '"', '`'].some((q) => text.includes(`${q}${id}${q}`)))) return 0;
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false);
  const ids = new Set<string>(AGENT_IDS);
  let count = 0;
  const visit = (node: ts.Node): void => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && ids.has(node.text)) count++;
    ts.forEachChild(node, visit);
  };
  visit(source);
  return count;
}

describe('agent ids outside src/agents/', () => {
  it('are spelled only in the listed places', () => {
    const src = join(REPO_DIR, 'src');
    const found: Record<string, number> = {};
    for (const path of tsFiles(src)) {
      const file = relative(REPO_DIR, path);
      if (file.startsWith('src/agents/')) continue;
      const count = agentLiterals(path);
      if (count > 0) found[file] = count;
    }
    const allowed = Object.fromEntries(Object.entries(ALLOWED).map(([file, { count }]) => [file, count]));
    expect(found).toEqual(allowed);
  });

  it('are found when spelled, and not in comments or longer texts', () => {
    const count = (text: string) => {
      const source = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, false);
      let n = 0;
      const visit = (node: ts.Node): void => {
        if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && node.text === 'droid')
          n++;
        ts.forEachChild(node, visit);
      };
      visit(source);
      return n;
    };
    expect(count("if (agent === 'droid') f(`droid`);")).toBe(2);
    expect(count("// agent === 'droid'\nconst s = 'the droid agent';")).toBe(0);
  });
});
