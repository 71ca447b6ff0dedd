import { effectiveRules, type NotifyConfig } from '../config/notify-schema.js';
import { PLATFORM_WATCH_EVENT } from '../events/names.js';
import type { RaiseKind } from './types.js';

const list = (value: string | string[] | undefined) =>
  value === undefined ? undefined : Array.isArray(value) ? value : [value];

/**
 * The notify rules a PlatformWatch event of `kind` can fire (by name, in order): enabled, `on` naming
 * PlatformWatch or `*`, and a `notificationType` filter, if any, naming the kind. Other filters of a
 * rule (project, tool, session...) find nothing in such an event and skip it (docs/watch.md).
 */
export function watchRules(notify: NotifyConfig, kind?: RaiseKind): string[] {
  if (!notify.enabled) return [];
  return effectiveRules(notify)
    .rules.map((rule, index) => ({ rule, name: rule.name ?? `rule-${index}` }))
    .filter(({ rule }) => {
      if (!rule.enabled) return false;
      const on = list(rule.on)!;
      if (!on.includes(PLATFORM_WATCH_EVENT) && !on.includes('*')) return false;
      const types = list(rule.notificationType);
      return !types || kind === undefined || types.includes(kind);
    })
    .map(({ name }) => name);
}
