/**
 * The redactor: the one place that removes secrets from text before it is logged or leaves the machine
 * (Slack, webhooks, remote commands, error messages). Documented in docs/enrich-ledger.md.
 *
 * It is imported on the hook's start-up path and by the logger, so it imports nothing, compiles every
 * pattern once at load time and skips all work for text that contains none of the cheap markers.
 *
 * What it removes (each replaced by `[REDACTED]`, keeping the harmless part around it):
 * - private key blocks (`-----BEGIN ... PRIVATE KEY-----` up to its END line, or to the end of a cut block);
 * - API keys and tokens of well-known shapes: AWS access key ids, GitHub (`ghp_`, `gho_`, `ghs_`, `ghu_`,
 *   `ghr_`, `github_pat_`), Slack (`xox?-`, `xapp-`, webhook URLs), OpenAI / Anthropic / Factory style
 *   `sk-` / `fk-` keys, Stripe, Google (`AIza`, `ya29.`), GitLab, npm, Hugging Face, SendGrid,
 *   DigitalOcean, Azure connection-string keys, JSON Web Tokens;
 * - `Authorization:` header values and `Bearer` / `Basic` / `Token` credentials;
 * - credentials in URLs (`scheme://user:password@host`, token-like user parts, secret query parameters);
 * - `NAME=value` assignments (env files, shell prefixes) and `"name": "value"` JSON pairs whose name
 *   says secret (KEY, TOKEN, SECRET, PASSWORD, CREDENTIALS, ...);
 * - optionally the user's home directory in absolute paths (`/home/ann/x` becomes `~/x`).
 */

import { SECRET_MARKER } from './secret-marker.js';

export interface RedactOptions {
  /** Replace the home directory at the start of absolute paths with `~`. Default false. */
  homePaths?: boolean;
  /** The home directory to hide; default `$HOME` (or `$USERPROFILE`). */
  home?: string;
}

/** What every removed secret becomes. */
export const REDACTED = '[REDACTED]';

/** A cheap superset test: text without any of its markers holds no secret these rules find. */
const PRECHECK = SECRET_MARKER;

type Replacer = (match: string, ...groups: string[]) => string;
interface Rule {
  pattern: RegExp;
  replace: string | Replacer;
}

/** The name of a setting that holds a secret, for `NAME=value` (tested per `_` segment). */
const SECRET_NAME =
  /(?:^|_)(?:(?:API|ACCESS|SECRET|PRIVATE|CLIENT|MASTER|ENCRYPTION|SIGNING|SERVICE|APP)_?KEYS?|KEYS?|TOKEN|SECRETS?|PASSWORD|PASSWD|PASSPHRASE|PASS|PWD|CREDENTIALS?|DSN|COOKIE|SALT|AUTH)(?:_|$)/;

/** JSON keys are camelCase or snake_case: a bare `key` or `auth` is too common there to mean a secret. */
const SECRET_JSON_NAME =
  /(?:^|_)(?:(?:API|ACCESS|SECRET|PRIVATE|CLIENT|MASTER|ENCRYPTION|SIGNING)_?KEYS?|APIKEY|TOKEN|SECRETS?|PASSWORD|PASSWD|PASSPHRASE|PWD|CREDENTIALS?|AUTHORIZATION|COOKIE|DSN)(?:_|$)/;

/** Names that merely describe a secret (its size, its file, its id) rather than hold it. */
const NEUTRAL_SUFFIX =
  /_(?:COUNT|COUNTS|LIMIT|USAGE|TYPE|KIND|NAME|LENGTH|LEN|SIZE|MAX|MIN|TTL|EXPIRY|EXPIRES|EXPIRES_AT|PATH|FILE|DIR|ID|IDS|HEADER|FIELD|PARAM|ENDPOINT|URL|ENABLED|SOCK|MODE)$/;

/** `fooBar-baz` -> `FOO_BAR_BAZ`, so one name test serves env, JSON and object keys. */
function normaliseName(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[-.\s]+/g, '_')
    .toUpperCase();
}

/** True when a setting or property name says its value is a secret (`apiKey`, `GITHUB_TOKEN`, ...). */
export function isSecretName(name: string, json = false): boolean {
  const normal = normaliseName(name);
  return (json ? SECRET_JSON_NAME : SECRET_NAME).test(normal) && !NEUTRAL_SUFFIX.test(normal);
}

const ALREADY = /^\[REDACTED/;

/** `$VAR`, `${VAR}` and empty values are references or blanks, not secrets. */
const NOT_A_VALUE = /^["']?(?:\$|\[REDACTED|["']?$)/;

function keepName(prefix: string, name: string, sep: string, value: string, json: boolean): string {
  if (NOT_A_VALUE.test(value) || !isSecretName(name, json)) return prefix + name + sep + value;
  const quote = value[0] === '"' || value[0] === "'" ? value[0] : '';
  return `${prefix}${name}${sep}${quote}${REDACTED}${quote}`;
}

/** A token-like run: long enough, with a digit (prose words rarely carry one). */
function looksLikeToken(value: string): boolean {
  return value.length >= 20 ? /\d/.test(value) || value.length >= 32 : value.length >= 8 && /\d/.test(value);
}

const RULES: readonly Rule[] = [
  // Private key blocks, complete or cut off.
  {
    pattern:
      /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\:-]*)/g,
    replace: (_m, kind = '', block = '') =>
      `-----BEGIN ${kind}PRIVATE KEY${block}-----${REDACTED}-----END ${kind}PRIVATE KEY${block}-----`,
  },
  // Authorization header values (any scheme), in headers, curl flags and JSON.
  {
    pattern:
      /\b((?:proxy-)?authorization["']?\s*[:=]\s*["']?)(?:(Bearer|Basic|Token|Digest|Negotiate)\s+)?([^\s"',;]+)/gi,
    replace: (m, head: string, scheme: string | undefined, value: string) =>
      ALREADY.test(value) ? m : `${head}${scheme ? `${scheme} ` : ''}${REDACTED}`,
  },
  // Bearer / Basic / Token credentials anywhere else.
  {
    pattern: /\b(Bearer|Basic|Token)(\s+)([A-Za-z0-9._~+/-]+=*)/g,
    replace: (m, scheme: string, space: string, value: string) =>
      looksLikeToken(value) ? `${scheme}${space}${REDACTED}` : m,
  },
  // Slack incoming webhooks and workflow triggers: the whole URL is the secret.
  {
    pattern: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9/_-]+/g,
    replace: REDACTED,
  },
  // URL credentials: scheme://user:password@host, and token-like user parts.
  {
    pattern: /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@:'"]*)(:[^\s/?#@'"]*)?@/gi,
    replace: (m, scheme: string, user: string, password: string | undefined) => {
      if (password && password.length > 1) return `${scheme}${user}:${REDACTED}@`;
      return looksLikeToken(user) ? `${scheme}${REDACTED}@` : m;
    },
  },
  // Secret query parameters.
  {
    pattern:
      /([?&](?:access_token|refresh_token|id_token|token|api[_-]?key|apikey|key|secret|client_secret|password|passwd|pwd|auth|sig|signature|X-Amz-Signature|X-Amz-Credential|X-Amz-Security-Token|X-Goog-Signature|X-Goog-Credential)=)([^&\s#"'<>]+)/gi,
    replace: (m, head: string, value: string) => (ALREADY.test(value) ? m : `${head}${REDACTED}`),
  },
  // JSON Web Tokens (three base64url parts, header and payload start with `{"`).
  { pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, replace: REDACTED },
  // AWS access key ids.
  {
    pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA)[A-Z0-9]{16}\b/g,
    replace: REDACTED,
  },
  // GitHub tokens.
  { pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{40,255})\b/g, replace: REDACTED },
  // Slack tokens.
  { pattern: /\b(?:xox[abposre]|xapp)-[A-Za-z0-9-]{10,}/g, replace: REDACTED },
  // OpenAI, Anthropic, Factory and similar `sk-` / `fk-` keys (a digit is required: `sk-learn-style` survives).
  { pattern: /\b(?:sk|fk|rk|pk)-(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{20,}/g, replace: REDACTED },
  // Stripe.
  { pattern: /\b(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b/g, replace: REDACTED },
  // Google API keys and OAuth access tokens.
  { pattern: /\bAIza[0-9A-Za-z_-]{35}\b|\bya29\.[0-9A-Za-z_-]{20,}/g, replace: REDACTED },
  // GitLab, npm, Hugging Face, SendGrid, DigitalOcean.
  {
    pattern:
      /\b(?:glpat-[0-9A-Za-z_-]{20,}|npm_[A-Za-z0-9]{36}|hf_[A-Za-z0-9]{30,}|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}|dop_v1_[a-f0-9]{64})\b/g,
    replace: REDACTED,
  },
  // Azure and similar connection strings.
  {
    pattern: /\b((?:AccountKey|SharedAccessKey|SharedAccessSignature|Password|Pwd)=)([^;\s"']+)/gi,
    replace: (m, head: string, value: string) => (ALREADY.test(value) ? m : `${head}${REDACTED}`),
  },
  // NAME=value assignments (env files, `export`, shell prefixes) whose name says secret.
  {
    pattern: /(^|[\s;&|(`])((?:export\s+)?)([A-Za-z_][A-Za-z0-9_]*)(=)("[^"\n]*"|'[^'\n]*'|[^\s'"`;&|)]+)/gm,
    replace: (m, lead: string, exp: string, name: string, eq: string, value: string) =>
      keepName(lead + exp, name, eq, value, false),
  },
  // "name": "value" JSON pairs whose name says secret.
  {
    pattern: /("([A-Za-z_][A-Za-z0-9_-]*)"\s*:\s*")((?:[^"\\\n]|\\.)*)"/g,
    replace: (m, head: string, name: string, value: string) =>
      NOT_A_VALUE.test(value) || !isSecretName(name, true) ? m : `${head}${REDACTED}"`,
  },
  // The same pairs inside a JSON string that holds JSON (`{\"apiKey\":\"...\"}`).
  {
    pattern: /(\\"([A-Za-z_][A-Za-z0-9_-]*)\\"\s*:\s*\\")((?:[^"\\\n]|\\\\)*)\\"/g,
    replace: (m, head: string, name: string, value: string) =>
      NOT_A_VALUE.test(value) || !isSecretName(name, true) ? m : `${head}${REDACTED}\\"`,
  },
];

const homePatternCache = new Map<string, RegExp>();

function homePattern(home: string): RegExp | undefined {
  const clean = home.replace(/[\\/]+$/, '');
  if (clean.length < 2) return undefined;
  let pattern = homePatternCache.get(clean);
  if (!pattern) {
    const escaped = clean.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    pattern = new RegExp(`${escaped}(?=[\\\\/"'\\s:,;)\\]}]|$)`, 'g');
    if (homePatternCache.size > 16) homePatternCache.clear();
    homePatternCache.set(clean, pattern);
  }
  return pattern;
}

function defaultHome(): string | undefined {
  return typeof process === 'object' ? process.env.HOME || process.env.USERPROFILE : undefined;
}

/**
 * Remove secrets from one string. Fast for text without secrets (a single pre-check), idempotent
 * (redacting twice gives the same text), never throws.
 */
export function redactText(text: string, options?: RedactOptions): string {
  if (typeof text !== 'string' || text.length === 0) return text;
  let out = text;
  if (PRECHECK.test(text)) {
    for (const rule of RULES) {
      rule.pattern.lastIndex = 0;
      out = out.replace(rule.pattern, rule.replace as Replacer);
    }
  }
  if (options?.homePaths) {
    const home = options.home ?? defaultHome();
    const pattern = home ? homePattern(home) : undefined;
    if (pattern) out = out.replace(pattern, '~');
  }
  return out;
}

const MAX_DEPTH = 64;

function redactValue(
  value: unknown,
  options: RedactOptions | undefined,
  seen: WeakSet<object>,
  depth: number,
): unknown {
  if (typeof value === 'string') return redactText(value, options);
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value)) return '[Circular]';
  if (depth >= MAX_DEPTH) return '[Too deep]';
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((item) => redactValue(item, options, seen, depth + 1));
    if (value instanceof Date) return value;
    if (value instanceof Error) {
      return {
        name: value.name,
        message: redactText(value.message, options),
        ...(value.stack ? { stack: redactText(value.stack, options) } : {}),
      };
    }
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      out[key] =
        typeof item === 'string' && item && isSecretName(key, true) && !ALREADY.test(item)
          ? REDACTED
          : redactValue(item, options, seen, depth + 1);
    }
    return out;
  } finally {
    seen.delete(value);
  }
}

/**
 * Redact a JSON-like value: every string goes through {@link redactText}, and string properties whose
 * name says secret (`apiKey`, `password`, `authorization`, `client_secret`, ...) are replaced whole.
 * Returns a copy; the input is not changed. Cycles become `"[Circular]"`, Errors plain objects.
 */
export function redactDeep<T>(value: T, options?: RedactOptions): T {
  return redactValue(value, options, new WeakSet(), 0) as T;
}
