import { CODEX_DETECT } from '../agents/codex-protocol.js';

/**
 * How hookd tells a Codex CLI payload (docs/agents/codex.md). The protocol's data is the adapter's
 * (src/agents/codex-protocol.ts); this is the hook path's question about it.
 */

/**
 * Whether a payload is Codex's: its transcript is a rollout file under a Codex home's `sessions/`
 * (`<CODEX_HOME>/sessions/YYYY/MM/DD/rollout-<time>-<session id>.jsonl`). Codex sets no variable of its
 * own in a hook's environment, so the payload is all there is.
 */
export function isCodexPayload(payload: Record<string, unknown>): boolean {
  const path = payload.transcript_path;
  const marker = CODEX_DETECT[0]!.transcriptMarker!;
  return (
    typeof path === 'string' &&
    path.includes(marker) &&
    /\/sessions\/\d{4}\/\d\d\/\d\d\/rollout-[^/]+\.jsonl$/.test(path)
  );
}
