import { RequestValidationError, type FieldIssue } from './errors.js';
import type { CreditLimitEntry } from './requests.js';

/**
 * Reads credit limits for `hookd api limits set --file`: CSV (`email,limit` per line, optional header,
 * `#` comments) or JSON (an array of {email, limit}, or {users: [...]}). Every bad line is reported at once.
 */
export function parseCreditLimits(text: string, fileName: string): CreditLimitEntry[] {
  const operation = `read credit limits from ${fileName}`;
  const trimmed = text.trim();
  if (trimmed.startsWith('[') || trimmed.startsWith('{')) {
    let json: unknown;
    try {
      json = JSON.parse(trimmed);
    } catch (error) {
      throw new RequestValidationError(operation, [
        { field: '(file)', message: `is not valid JSON: ${(error as Error).message}` },
      ]);
    }
    const list = Array.isArray(json) ? json : (json as { users?: unknown }).users;
    if (!Array.isArray(list)) {
      throw new RequestValidationError(operation, [
        { field: '(file)', message: 'must be an array of {email, limit} or {users: [...]}' },
      ]);
    }
    return list as CreditLimitEntry[];
  }
  const entries: CreditLimitEntry[] = [];
  const issues: FieldIssue[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const cells = line.split(',').map((c) => c.trim().replace(/^"(.*)"$/, '$1'));
    if (entries.length === 0 && issues.length === 0 && cells[0]?.toLowerCase() === 'email') return;
    const [email, limit, ...rest] = cells;
    if (!email || limit === undefined || rest.length > 0 || !/^-?\d+$/.test(limit)) {
      issues.push({
        field: `line ${index + 1}`,
        message: `expected "email,limit" with a whole number, got ${JSON.stringify(line)}`,
      });
      return;
    }
    entries.push({ email, limit: Number(limit) });
  });
  if (issues.length > 0) throw new RequestValidationError(operation, issues);
  return entries;
}
