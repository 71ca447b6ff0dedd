import {
  channelSchema,
  effectiveRules,
  notifySchema,
  ruleSchema,
  type ChannelConfig,
  type NotifyConfig,
  type NotifyRule,
} from './schemas/notify-schema.js';
import { formatPath, type ConfigIssue } from './issues.js';
import { isObject } from '../util/json-values.js';

/**
 * A trusted project file's `notify`, merged into the user's (docs/configuration.md, "Project configs and trust"). A
 * project may add channels and rules, never change or disable the user's: of its `notify` only
 * `channels` and `rules` apply; a channel may not reuse a name the user has (nor the implicit
 * "desktop"); its rules run after the user's (the built-in defaults count as the user's rules when the
 * user wrote none), each named `project:<name>` so it never shares the dedupe, cooldown or permission
 * memory of a user rule. `enabled`, `defaults`, `noise`, `quietHours`
 * and `presence` stay the user's.
 */

/** The prefix of every project rule's name. */
export const PROJECT_RULE_PREFIX = 'project:';

export interface ProjectNotifyOptions {
  /**
   * The name a project channel gets in the merged config (default: its own). The daemon serves many
   * projects with one channel table, so it qualifies them (`team@<project>`).
   */
  channelName?: (name: string) => string;
}

export type ProjectNotifyResult =
  | { ok: true; notify: NotifyConfig; rules: string[]; channels: string[] }
  | { ok: false; issues: ConfigIssue[] };

/** Merges a project's raw `notify` (already valid on its own) into the user's validated one. */
export function mergeProjectNotify(
  user: NotifyConfig,
  projectNotify: unknown,
  file: string,
  options: ProjectNotifyOptions = {},
): ProjectNotifyResult {
  const issues: ConfigIssue[] = [];
  const issue = (path: PropertyKey[], message: string, fix: string, value?: unknown) =>
    issues.push({
      file,
      path: formatPath(['notify', ...path]),
      message,
      ...(value !== undefined ? { value } : {}),
      fix,
    });
  const raw = isObject(projectNotify) ? projectNotify : {};
  const rename = options.channelName ?? ((name: string) => name);

  const channels: Record<string, ChannelConfig> = {};
  const renamed = new Map<string, string>();
  const userChannels = new Set([...Object.keys(user.channels), 'desktop']);
  for (const [name, value] of Object.entries(isObject(raw.channels) ? raw.channels : {})) {
    if (userChannels.has(name)) {
      issue(
        ['channels', name],
        `a project cannot redefine the user's channel "${name}"`,
        `rename it (e.g. "${name}-project"); a project rule may send to the user's "${name}" as it is`,
      );
      continue;
    }
    const parsed = channelSchema.safeParse(value);
    if (!parsed.success) continue; // reported by the project file's own validation
    channels[rename(name)] = parsed.data;
    renamed.set(name, rename(name));
  }

  const base = effectiveRules(user).rules;
  const userRuleNames = new Set(base.map((rule, index) => rule.name ?? `rule-${index}`));
  const rules: NotifyRule[] = [];
  (Array.isArray(raw.rules) ? raw.rules : []).forEach((value: unknown, index) => {
    const parsed = ruleSchema.safeParse(value);
    if (!parsed.success) return;
    const name = `${PROJECT_RULE_PREFIX}${parsed.data.name ?? `rule-${index}`}`;
    if (userRuleNames.has(name))
      issue(
        ['rules', index, 'name'],
        `the user has a rule named "${name}"`,
        'give the project rule another name',
      );
    const rename = (list: string[]) => list.map((c) => renamed.get(c) ?? c);
    rules.push({
      ...parsed.data,
      name,
      channels: rename(parsed.data.channels),
      ...(parsed.data.escalate
        ? { escalate: parsed.data.escalate.map((step) => ({ ...step, channels: rename(step.channels) })) }
        : {}),
    });
  });

  // The cross-check of rule -> channel names runs on the merged result; a problem in a project rule is
  // reported at the project file's own path.
  const merged = { ...user, channels: { ...user.channels, ...channels }, rules: [...base, ...rules] };
  const checked = notifySchema.safeParse(merged);
  if (!checked.success) {
    for (const problem of checked.error.issues) {
      const [key, index, ...rest] = problem.path;
      if (key === 'rules' && typeof index === 'number' && index >= base.length) {
        const hint = (problem as { params?: { hint?: string } }).params?.hint;
        const path = ['rules', index - base.length, ...rest];
        issue(
          path,
          problem.message,
          hint?.replace(
            /use one of: (.*)$/,
            (_, list: string) => `use one of the user's (${list}) or the project's own channels`,
          ) ?? 'fix the rule',
        );
      } else issue([], `cannot merge with the user's notify: ${problem.message}`, 'fix the project file');
    }
  }
  if (issues.length > 0) return { ok: false, issues };
  return {
    ok: true,
    notify: checked.data!,
    rules: rules.map((r) => r.name!),
    channels: [...renamed.keys()],
  };
}
