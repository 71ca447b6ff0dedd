import { configSchema } from './schemas/schema.js';
import { validateConfigText } from './validate.js';
import { parseJsonc } from './jsonc.js';
import { ignoredProjectKeys, mergeLevels, withoutProjectNotify, type LevelInput } from './merge.js';
import type { ConfigSource, ConfigValidator, LoadedConfig } from './load.js';
import type { ConfigIssue } from './issues.js';
import { notifySettings } from './schemas/notify-schema.js';
import { mergeProjectNotify } from './project-notify.js';

/**
 * Validates each level on its own, then merges what applies: a valid user file (or, when it is
 * invalid, the last user file that validated) and a valid project file the user trusted. Every
 * problem is kept on its source, so the caller can say it loudly.
 */
export function resolveConfig(files: Parameters<ConfigValidator['resolveConfig']>[0]): LoadedConfig {
  const sources: ConfigSource[] = [];
  const levels: LevelInput[] = [];
  for (const input of files) {
    const { level, file, text } = input;
    const extra = input.trust ? { trust: input.trust } : {};
    if (input.readError !== undefined) {
      sources.push({
        level,
        file,
        exists: true,
        ok: false,
        issues: [
          {
            file,
            path: '(root)',
            message: `cannot read: ${input.readError.reason}`,
            fix: input.readError.fix,
          },
        ],
        ...extra,
      });
    } else if (text === null) {
      // An `unsafe` project file (a link inside the project) exists, but hookd did not read it.
      const exists = input.trust?.state === 'unsafe';
      sources.push({ level, file, exists, ok: true, issues: [], ...extra });
      continue;
    } else {
      const result = validateConfigText(text, file, level);
      if (result.ok) {
        let raw = parseJsonc(text) as Record<string, unknown>;
        const ignored = level === 'project' ? ignoredProjectKeys(raw) : [];
        // Trusted before project notify rules applied: the user was never shown them.
        if (level === 'project' && input.trust?.notify !== true) {
          const stale = withoutProjectNotify(raw);
          raw = stale.raw;
          ignored.push(...stale.dropped);
        }
        if (input.apply !== false) levels.push({ level, file, raw });
        sources.push({
          level,
          file,
          exists: true,
          ok: true,
          issues: [],
          ...extra,
          ...(ignored.length > 0 ? { ignoredKeys: ignored } : {}),
        });
        continue;
      }
      sources.push({ level, file, exists: true, ok: false, issues: result.issues, ...extra });
    }
    // The file is invalid or unreadable: the last version that validated stands in, if it still does.
    const lastGood = input.lastGood;
    if (lastGood && validateConfigText(lastGood.text, file, level).ok) {
      levels.push({ level, file, raw: parseJsonc(lastGood.text) as Record<string, unknown> });
      sources[sources.length - 1]!.lastGood = { savedAt: lastGood.savedAt };
    }
  }
  const merged = mergeLevels(levels);
  const parsed = configSchema.safeParse(merged.raw);
  // A trusted project's notify rules and channels, added to the user's and checked once merged.
  const project =
    parsed.success && merged.projectNotify
      ? mergeProjectNotify(
          parsed.data.notify ?? notifySettings({}),
          merged.projectNotify.raw,
          merged.projectNotify.file,
        )
      : undefined;
  if (!parsed.success || (project && !project.ok)) {
    // Each level was valid alone; a merge can only fail on a cross-level conflict. Keep the user level.
    const problems: ConfigIssue[] = parsed.success
      ? project && !project.ok
        ? project.issues
        : []
      : [
          {
            file: '',
            path: '(root)',
            message: `cannot merge with the user config: ${parsed.error.issues.map((i) => i.message).join('; ')}`,
          },
        ];
    for (const s of sources)
      if (s.level === 'project' && s.ok) {
        s.ok = false;
        s.issues.push(...problems.map((p) => ({ ...p, file: s.file })));
      }
    const userOnly = mergeLevels(levels.filter((l) => l.level === 'user'));
    return {
      config: configSchema.parse(userOnly.raw),
      sources,
      entryOrigins: userOnly.entryOrigins,
      entryLevels: userOnly.entryLevels,
    };
  }
  const config = project?.ok ? { ...parsed.data, notify: project.notify } : parsed.data;
  return {
    config,
    sources,
    entryOrigins: merged.entryOrigins,
    entryLevels: merged.entryLevels,
    ...(merged.projectCommandTimeoutSec !== undefined
      ? { projectCommandTimeoutSec: merged.projectCommandTimeoutSec }
      : {}),
    ...(project?.ok && merged.projectNotify
      ? { projectNotify: { ...merged.projectNotify, rules: project.rules, channels: project.channels } }
      : {}),
  };
}

export const validator: ConfigValidator = { resolveConfig };
