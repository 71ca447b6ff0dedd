/** One problem in a config file, as shown to a person: where, what, the value, and the fix. */
export interface ConfigIssue {
  file: string;
  /** Dotted path with [index] for arrays, e.g. `hooks.PostToolUse[0].hooks[1].timeout`. */
  path: string;
  message: string;
  value?: unknown;
  fix?: string;
}

export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(String(key))) out += (out ? '.' : '') + String(key);
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out || '(root)';
}

function showValue(value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined) return String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Human text for a list of issues, one block each, for stderr or `hookd validate`. */
export function formatIssues(issues: readonly ConfigIssue[]): string {
  return issues
    .map((issue) => {
      const lines = [`${issue.file}: ${issue.path}: ${issue.message}`];
      if (issue.value !== undefined) lines.push(`  value: ${showValue(issue.value)}`);
      if (issue.fix) lines.push(`  fix: ${issue.fix}`);
      return lines.join('\n');
    })
    .join('\n');
}
