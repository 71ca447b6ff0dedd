import type { ConfigSource, LoadedConfig } from './load.js';

/** A project file that exists but is not applied because the user has not trusted these bytes. */
export function untrustedSource(source: ConfigSource): boolean {
  return source.exists && source.trust !== undefined && source.trust.state !== 'trusted';
}

/**
 * Whether a loaded config has anything to report: a warning, a file that is invalid or has issues, a
 * project file not trusted. The hook loads its reporting code only when this is true.
 */
export function configHasNews(loaded: LoadedConfig): boolean {
  return (
    (loaded.warnings?.length ?? 0) > 0 ||
    loaded.sources.some((s) => !s.ok || s.issues.length > 0 || untrustedSource(s))
  );
}
