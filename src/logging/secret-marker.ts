/**
 * The redactor's cheap superset test (redact.ts): text without any of these markers cannot hold a
 * secret the redactor finds, so it is returned untouched without running the patterns. In a file of its
 * own so that the hook's logger can skip loading the redactor for such text (the hook bundle loads the
 * redactor from its own chunk, scripts/build.mjs).
 */
export const SECRET_MARKER =
  /key|token|secret|pass|pwd|credential|auth|dsn|cookie|salt|bearer|basic|akia|asia|gh[pousr]_|github_pat|xox|xapp|slack|sk-|[spr]k_|fk-|aiza|ya29|glpat|npm_|hf_|sg\.|dop_v1|eyj|-----begin|@|[?&][a-z_.-]*=/i;

/** False when `text` cannot hold a secret the redactor finds (redactText would return it unchanged). */
export function mayHoldSecret(text: string): boolean {
  return SECRET_MARKER.test(text);
}
