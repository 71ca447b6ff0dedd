import type { NotifyConfig } from '../../../config/schemas/notify-schema.js';
import { effectiveRules } from '../../../notify/rules.js';

/** The channel names some enabled rule sends to (the default rules included when no rules are written). */
export function usedChannels(notify: NotifyConfig): Set<string> {
  const used = new Set<string>();
  if (!notify.enabled) return used;
  for (const rule of effectiveRules(notify).rules)
    if (rule.enabled) for (const c of rule.channels) used.add(c);
  return used;
}

/** Whether a channel name means a desktop channel: defined as one, or the implicit "desktop". */
export function isDesktopChannel(notify: NotifyConfig, name: string): boolean {
  const defined = notify.channels[name];
  return defined ? defined.type === 'desktop' && defined.enabled : name === 'desktop';
}
