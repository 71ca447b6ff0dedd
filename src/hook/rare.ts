/**
 * What the hook needs only for what most events never have: input it cannot take as it is (an unreadable
 * or rejected event, kept as a dead letter), and a config not in force (invalid, untrusted) to report.
 * The hook bundle loads this module from its own chunk (dist/rare.cjs, scripts/build.mjs) at the first
 * use, so an ordinary event never reads or compiles it. The hook imports these through here.
 */
export { keepDeadLetter } from '../events/dead-letter.js';
export { claimConfigNotices, claimTrustLapses, logConfigState } from './config-report.js';
export { guardsAtStake, identifyUnreadable, unreadableReply } from './unreadable.js';
