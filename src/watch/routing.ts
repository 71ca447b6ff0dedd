import { defaultChannel, effectiveRules, type NotifyConfig } from '../config/schemas/notify-schema.js';
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

/** The built-in rule for PlatformWatch events (docs/watch.md). */
export const WATCH_DEFAULT_RULE = 'default: platform watch';

const withDefault = new WeakMap<NotifyConfig, NotifyConfig>();

/**
 * The notify settings the daemon routes by while watchers run: as written, plus the built-in rule
 * WATCH_DEFAULT_RULE (PlatformWatch to the default channel, like the other built-in rules) when no rule
 * routes PlatformWatch. Not added when notifications are off, with `notify.defaults: false`, or when no
 * watcher is on.
 */
export function withWatchDefault(notify: NotifyConfig, watching: boolean): NotifyConfig {
  if (!watching || !notify.enabled || !notify.defaults || watchRules(notify).length > 0) return notify;
  let out = withDefault.get(notify);
  if (!out) {
    out = {
      ...notify,
      rules: [
        ...effectiveRules(notify).rules,
        {
          name: WATCH_DEFAULT_RULE,
          enabled: true,
          on: PLATFORM_WATCH_EVENT,
          session: 'any',
          channels: [defaultChannel(notify)],
        },
      ],
    };
    withDefault.set(notify, out);
  }
  return out;
}
