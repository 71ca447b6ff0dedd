import { ADAPTERS } from '../agents/adapters/registry.js';
import { dirname } from 'node:path';
import { isObject } from '../util/json-values.js';
import type { Layer } from './agent-files.js';
import type { Agent } from './agents.js';
import { hooksAt, hooksSwitches, type HookAt, type HooksFileRead } from './effective-hooks.js';
import { shellQuote } from './hookd-command.js';
import { isHookdHook } from './transport.js';

/** hookd's entries in one file of the agent: the events they run for, and those another file shadows. */
export interface HookdInFile {
  layer: Layer;
  file: string;
  /** Events whose hookd entry the agent runs. */
  events: string[];
  /** Events whose hookd entry the agent does not run: the hooks.json of the folder names them. */
  shadowed: { event: string; by: string }[];
}

/** Every hookd hook object in the files the agent accepts, with whether it runs. */
export function hookdHooksAt(reads: readonly HooksFileRead[]): HookAt[] {
  return hooksAt(reads).filter((h) => isHookdHook(h.hook));
}

/** Which file of which layer holds hookd's entries, in the agent's file order. */
export function hookdLayers(reads: readonly HooksFileRead[]): HookdInFile[] {
  const hooks = hookdHooksAt(reads);
  const out: HookdInFile[] = [];
  for (const read of reads) {
    const mine = hooks.filter((h) => h.file === read.file);
    if (mine.length === 0) continue;
    const unique = (list: string[]) => [...new Set(list)];
    out.push({
      layer: read.layer,
      file: read.file,
      events: unique(mine.filter((h) => !h.shadowedBy).map((h) => h.event)),
      shadowed: mine
        .filter((h) => h.shadowedBy)
        .map((h) => ({ event: h.event, by: h.shadowedBy! }))
        .filter((s, i, all) => all.findIndex((t) => t.event === s.event) === i),
    });
  }
  return out;
}

/**
 * hookd's entries in an agent's TOML config (Codex CLI's config.toml), which hookd reads and never edits:
 * each `[[hooks.<Event>]]` table that holds a hookd command, by its event and its place among that
 * event's tables (from 0, as the agent counts them).
 */
export interface HookdInToml {
  file: string;
  layer: Layer;
  tables: { event: string; index: number }[];
}

export function hookdInToml(reads: readonly HooksFileRead[]): HookdInToml[] {
  const out: HookdInToml[] = [];
  for (const h of hookdHooksAt(reads)) {
    if (h.kind !== 'settings-toml') continue;
    let file = out.find((f) => f.file === h.file);
    if (!file) out.push((file = { file: h.file, layer: h.layer, tables: [] }));
    if (!file.tables.some((t) => t.event === h.event && t.index === h.index))
      file.tables.push({ event: h.event, index: h.index });
  }
  return out;
}

/** An event for which the agent runs two different hookd commands: every command of it runs twice. */
export interface DoubleWiring {
  event: string;
  hooks: { file: string; layer: Layer; command: string }[];
}

/**
 * Events for which the agent runs more than one hookd hook: hookd then runs the event twice, every
 * guard and notification included. Droid 0.225.2 runs the hooks of each folder, an identical command
 * in both folders twice; Claude Code runs an identical command once, Gemini CLI 0.61.0 one of the same
 * name and command. Hooks the agent does not run (shadowed, or switched off) do not count.
 */
export function doubleWirings(agent: Agent, reads: readonly HooksFileRead[]): DoubleWiring[] {
  const off = new Set(hooksSwitches(agent, reads).flatMap((s) => s.off));
  const running = hookdHooksAt(reads).filter((h) => !h.shadowedBy && !off.has(h.layer));
  const { dedupesAcrossFiles: dedupes, dedupesByName } = ADAPTERS[agent].settings;
  const nameOf = (hook: unknown) =>
    dedupesByName && isObject(hook) && typeof hook.name === 'string' ? hook.name : '';
  const events = [...new Set(running.map((h) => h.event))];
  return events.flatMap((event) => {
    const hooks = running
      .filter((h) => h.event === event)
      .map((h) => ({
        file: h.file,
        layer: h.layer,
        command: isObject(h.hook) && typeof h.hook.command === 'string' ? h.hook.command : '(http)',
        name: nameOf(h.hook),
      }))
      .filter(
        (h, i, all) =>
          all.findIndex(
            (o) => o.command === h.command && o.name === h.name && (dedupes || o.file === h.file),
          ) === i,
      )
      .map(({ name: _name, ...h }) => h);
    return hooks.length > 1 ? [{ event, hooks }] : [];
  });
}

/**
 * The `hookd uninstall` that takes hookd out of one layer's files, or undefined for the managed layer
 * (only its administrator changes it).
 */
export function uninstallCommandFor(agent: Agent, layer: Layer, file: string): string | undefined {
  return layerCommand('uninstall', agent, layer, file);
}

/** The `hookd install` that rewrites hookd's entries of one layer's files (undefined: managed). */
export function installCommandFor(agent: Agent, layer: Layer, file: string): string | undefined {
  return layerCommand('install', agent, layer, file);
}

function layerCommand(
  verb: 'install' | 'uninstall',
  agent: Agent,
  layer: Layer,
  file: string,
): string | undefined {
  const base = `hookd ${verb} --agent ${agent}`;
  // A Droid level's folder is `<dir>/.factory` (its hooks.json may be one folder deeper).
  const factoryDir = (f: string) => (dirname(f).endsWith('/hooks') ? dirname(dirname(f)) : dirname(f));
  switch (layer) {
    case 'user':
      return base;
    case 'project':
      return `${base} --scope project --project ${shellQuote(dirname(factoryDir(file)))}`;
    case 'local':
      return `${base} --file ${shellQuote(file)}`;
    case 'managed':
      return undefined;
  }
}
