import type * as z from 'zod';
import type { FieldIssue } from './errors.js';

/** `data[3].by_model[0].model_id` from a zod issue path. */
export function formatFieldPath(path: readonly PropertyKey[], prefix = ''): string {
  let out = prefix;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out || '(body)';
}

/** Zod issues as field issues; unrecognized keys become one issue per key, named in the path. */
export function fieldIssuesFromZod(error: z.ZodError, prefix = ''): FieldIssue[] {
  const out: FieldIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        out.push({ field: formatFieldPath([...issue.path, key], prefix), message: 'is not a known field' });
      }
      continue;
    }
    out.push({ field: formatFieldPath(issue.path, prefix), message: issue.message });
  }
  return out;
}
