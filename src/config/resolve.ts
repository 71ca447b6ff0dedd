import { configSchema } from './schema.js';
import { validateConfigText } from './validate.js';
import { mergeLevels, type LevelInput } from './merge.js';
import type { ConfigSource, ConfigValidator, LoadedConfig } from './load.js';

/** Validates each level on its own (an invalid file is ignored, loudly), then merges the valid ones. */
export function resolveConfig(files: Parameters<ConfigValidator['resolveConfig']>[0]): LoadedConfig {
  const sources: ConfigSource[] = [];
  const levels: LevelInput[] = [];
  for (const { level, file, text } of files) {
    if (text === null) {
      sources.push({ level, file, exists: false, ok: true, issues: [] });
      continue;
    }
    const result = validateConfigText(text, file);
    if (result.ok) {
      levels.push({ file, raw: JSON.parse(text) as Record<string, unknown> });
      sources.push({ level, file, exists: true, ok: true, issues: [] });
    } else {
      sources.push({ level, file, exists: true, ok: false, issues: result.issues });
    }
  }
  const merged = mergeLevels(levels);
  const parsed = configSchema.safeParse(merged.raw);
  if (!parsed.success) {
    // Each level was valid alone; a merge can only fail on a cross-level conflict. Keep the user level.
    const message = parsed.error.issues.map((i) => i.message).join('; ');
    for (const s of sources)
      if (s.level === 'project' && s.ok) {
        s.ok = false;
        s.issues.push({
          file: s.file,
          path: '(root)',
          message: `cannot merge with the user config: ${message}`,
        });
      }
    const userOnly = mergeLevels(levels.filter((l) => l.file === sources[0]?.file));
    return { config: configSchema.parse(userOnly.raw), sources, entryOrigins: userOnly.entryOrigins };
  }
  return { config: parsed.data, sources, entryOrigins: merged.entryOrigins };
}

export const validator: ConfigValidator = { resolveConfig };
