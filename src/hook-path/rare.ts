/**
 * What the hook needs only for what most events never have: input it cannot take as it is (an unreadable
 * or rejected event, kept as a dead letter), a config not in force (invalid, untrusted) to report, and a
 * fast client that was refused or is older than this hookd, an event too large to hand off as it is.
 * The hook bundle loads this module from its own chunk (dist/rare.cjs, scripts/build.mjs) at the first
 * use, so an ordinary event never reads or compiles it. The hook imports these through here.
 */
export { claimConfigNotices, claimConfigWarnings, logConfigState } from './config-report.js';
export { answerUnreadable, keepTooDeep, type Rejection } from './rejected.js';
export { logClientRefusal, logStdinCopyProblem, olderClientNotice } from './client-notes.js';
export { boundedPayload } from './handoff-bound.js';
