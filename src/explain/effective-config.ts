import { API_DEFAULTS } from '../config/api-schema.js';
import { enrichConfigSchema } from '../config/enrich-schema.js';
import { ledgerConfigSchema } from '../config/ledger-schema.js';
import { notifySettings } from '../config/notify-schema.js';
import type { HookdConfig } from '../config/schema.js';
import { effectiveRules } from '../daemon/rules.js';
import { redactDeep } from '../logging/redact.js';

/**
 * The whole config in force, every section with its defaults (the notification rules too: the built-in
 * ones when none are written), for `hookd config`. `${VAR}` references stay as written (they are resolved
 * only when used); literal secrets are redacted.
 */
export function effectiveConfig(config: HookdConfig): Record<string, unknown> {
  const notify = notifySettings(config.notify);
  const { rules, builtIn } = effectiveRules(notify);
  return redactDeep({
    ...config,
    notify: { ...notify, rules, ...(builtIn ? { builtInRules: true } : {}) },
    enrich: enrichConfigSchema.parse(config.enrich ?? {}),
    ledger: ledgerConfigSchema.parse(config.ledger ?? {}),
    api: { ...API_DEFAULTS, ...config.api },
  });
}
