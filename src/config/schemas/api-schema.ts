import * as z from 'zod';

/** Where the real platform lives; tests and the simulator always override these. */
export const API_DEFAULTS = {
  baseUrl: 'https://api.factory.ai',
  appUrl: 'https://app.factory.ai',
  timeoutMs: 15_000,
  retries: 2,
} as const;

const httpUrl = z.url({ protocol: /^https?$/ });

export const apiConfigSchema = z
  .strictObject({
    baseUrl: httpUrl
      .optional()
      .describe(
        `API host for analytics (/api/v1) and management (/api/v0) endpoints (default ${API_DEFAULTS.baseUrl}; env HOOKD_API_URL wins).`,
      ),
    appUrl: httpUrl
      .optional()
      .describe(
        `Web application host, serving readiness reports (default ${API_DEFAULTS.appUrl}; env HOOKD_APP_URL wins).`,
      ),
    keyFile: z
      .string()
      .refine((path) => path.startsWith('/') || path.startsWith('~/') || /^[A-Za-z]:[\\/]/.test(path), {
        message: 'must be an absolute path or start with ~/',
        params: { hint: 'for example "~/.config/hookd/api-key"' },
      })
      .optional()
      .describe(
        'File holding the API key, used when HOOKD_API_KEY and FACTORY_API_KEY are unset; must not be readable by group or others (chmod 600).',
      ),
    timeoutMs: z
      .number()
      .int()
      .positive()
      .max(600_000)
      .optional()
      .describe(`Milliseconds before one HTTP request is abandoned (default ${API_DEFAULTS.timeoutMs}).`),
    retries: z
      .number()
      .int()
      .min(0)
      .max(10)
      .optional()
      .describe(
        `Retries, with backoff, of idempotent requests (GET, PUT) after a network error, timeout, 429 or 5xx (default ${API_DEFAULTS.retries}).`,
      ),
  })
  .describe('Platform API access (analytics, readiness reports, management).');

export type ApiConfig = z.infer<typeof apiConfigSchema>;
