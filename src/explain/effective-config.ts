import { API_DEFAULTS } from '../config/schemas/api-schema.js';
import { enrichConfigSchema } from '../config/schemas/enrich-schema.js';
import { ledgerConfigSchema } from '../config/schemas/ledger-schema.js';
import { notifySettings } from '../config/schemas/notify-schema.js';
import type { HookdConfig } from '../config/schemas/schema.js';
import { effectiveRules } from '../notify/rules.js';
import { redactDeep } from '../logging/redact.js';

/** A value that only names a variable (`${SLACK_WEBHOOK_URL}`): not a secret, and worth showing. */
const REFERENCE = /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/;

/** The redacted copy, with the plain `${VAR}` references of the original put back. */
function keepReferences(original: unknown, redacted: unknown): unknown {
  if (typeof original === 'string') return REFERENCE.test(original) ? original : redacted;
  if (Array.isArray(original) && Array.isArray(redacted))
    return redacted.map((item, i) => keepReferences(original[i], item));
  if (original && typeof original === 'object' && redacted && typeof redacted === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(redacted))
      out[key] = keepReferences((original as Record<string, unknown>)[key], value);
    return out;
  }
  return redacted;
}

/**
 * The whole config in force, every section with its defaults (the notification rules too: the built-in
 * ones when none are written), for `hookd config`. `${VAR}` references stay as written (they are resolved
 * only when used); literal secrets are redacted.
 */
export function effectiveConfig(config: HookdConfig): Record<string, unknown> {
  const notify = notifySettings(config.notify);
  const { rules, builtIn } = effectiveRules(notify);
  const effective = {
    ...config,
    notify: { ...notify, rules, ...(builtIn ? { builtInRules: true } : {}) },
    enrich: enrichConfigSchema.parse(config.enrich ?? {}),
    ledger: ledgerConfigSchema.parse(config.ledger ?? {}),
    api: { ...API_DEFAULTS, ...config.api },
  };
  return keepReferences(effective, redactDeep(effective)) as Record<string, unknown>;
}
