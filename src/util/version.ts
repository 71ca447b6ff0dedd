declare const __HOOKD_VERSION__: string | undefined;

/**
 * hookd's version, from package.json's "version" (the one place it is written): scripts/build.mjs puts it
 * into the bundles with esbuild's `define`, vitest.config.ts into the sources the tests run.
 */
export const HOOKD_VERSION: string = typeof __HOOKD_VERSION__ === 'string' ? __HOOKD_VERSION__ : '0.0.0-dev';

/** The User-Agent of every HTTP request hookd makes (webhooks, the platform API). */
export const USER_AGENT = `hookd/${HOOKD_VERSION}`;
