/**
 * What the hook needs only for input it cannot take as it is: an unreadable or rejected event, kept as a
 * dead letter. The hook bundle loads this module from its own chunk (dist/rare.cjs, scripts/build.mjs)
 * at the first use, so an ordinary event never reads or compiles it. Import these through here.
 */
export { keepDeadLetter } from '../events/dead-letter.js';
export { guardsAtStake, identifyUnreadable, unreadableReply } from './unreadable.js';
