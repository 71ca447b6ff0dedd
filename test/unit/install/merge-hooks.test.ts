import { describe, expect, it } from 'vitest';
import {
  listForeignEntries,
  mergeHookdEntries,
  removeForeignEntries,
  removeHookdEntries,
} from '../../../src/install/merge-hooks.js';

const HOOKD = '/opt/hookd/dist/hookd.cjs hook';
const lint = { type: 'command', command: 'npm run lint', timeout: 30 };
const other = { matcher: 'Edit|Create', hooks: [lint] };

describe('mergeHookdEntries', () => {
  it('appends one entry per event after the existing ones and keeps the rest as it was', () => {
    const input = { PostToolUse: [other], Custom: 'left alone' };
    const result = mergeHookdEntries(input, {
      events: ['PostToolUse', 'Stop'],
      command: HOOKD,
      timeoutSec: 60,
    });
    // Each event's entry names its event.
    const mine = (event: string) => ({
      matcher: '',
      hooks: [{ type: 'command', command: `${HOOKD} --event ${event}`, timeout: 60 }],
    });
    expect(result.hooks).toEqual({
      PostToolUse: [other, mine('PostToolUse')],
      Custom: 'left alone',
      Stop: [mine('Stop')],
    });
    expect(Object.keys(result.hooks)).toEqual(['PostToolUse', 'Custom', 'Stop']);
    expect(result.actions).toEqual([
      { event: 'PostToolUse', action: 'added' },
      { event: 'Stop', action: 'added' },
    ]);
    expect(input).toEqual({ PostToolUse: [other], Custom: 'left alone' });
  });

  it('changes nothing the second time', () => {
    const once = mergeHookdEntries({ Stop: [other] }, { events: ['Stop'], command: HOOKD, timeoutSec: 60 });
    const twice = mergeHookdEntries(once.hooks, { events: ['Stop'], command: HOOKD, timeoutSec: 60 });
    expect(twice.hooks).toEqual(once.hooks);
    expect(twice.actions).toEqual([{ event: 'Stop', action: 'unchanged' }]);
  });

  it('updates an old hookd path in place, keeping its matcher, and drops duplicate hookd hooks', () => {
    const input = {
      Stop: [
        { matcher: 'x', hooks: [lint, { type: 'command', command: '/old/hookd hook', timeout: 10 }] },
        other,
        { matcher: '', hooks: [{ type: 'command', command: 'hookd hook' }] },
      ],
    };
    const result = mergeHookdEntries(input, { events: ['Stop'], command: HOOKD, timeoutSec: 60 });
    expect(result.hooks).toEqual({
      Stop: [
        { matcher: 'x', hooks: [lint, { type: 'command', command: `${HOOKD} --event Stop`, timeout: 60 }] },
        other,
      ],
    });
    expect(result.actions).toEqual([{ event: 'Stop', action: 'updated' }]);
  });
});

describe('removeHookdEntries', () => {
  it('removes exactly the hookd hooks and the entries and events they leave empty', () => {
    const input = {
      Stop: [other, { matcher: '', hooks: [{ type: 'command', command: HOOKD }] }],
      PreToolUse: [{ matcher: '', hooks: [{ type: 'command', command: HOOKD }] }],
      Notification: [{ matcher: '', hooks: [lint, { type: 'command', command: 'hookd hook' }] }],
      SessionEnd: [],
    };
    expect(removeHookdEntries(input)).toEqual({
      hooks: { Stop: [other], Notification: [{ matcher: '', hooks: [lint] }], SessionEnd: [] },
      removed: [
        { event: 'Stop', count: 1 },
        { event: 'PreToolUse', count: 1 },
        { event: 'Notification', count: 1 },
      ],
    });
  });

  it('reports an object it emptied as undefined, and leaves a hookd-free object alone', () => {
    const installed = mergeHookdEntries(undefined, {
      events: ['Stop'],
      command: HOOKD,
      timeoutSec: 60,
    }).hooks;
    expect(removeHookdEntries(installed)).toEqual({
      hooks: undefined,
      removed: [{ event: 'Stop', count: 1 }],
    });
    expect(removeHookdEntries({})).toEqual({ hooks: {}, removed: [] });
    expect(removeHookdEntries(undefined)).toEqual({ hooks: undefined, removed: [] });
  });
});

describe('listForeignEntries / removeForeignEntries', () => {
  it('lists the non-hookd hooks of each entry and removes them, leaving hookd alone', () => {
    const mine = { type: 'command', command: HOOKD };
    const input = {
      Stop: [
        { matcher: '', hooks: [lint, mine] },
        { matcher: '', hooks: [mine] },
      ],
      PreToolUse: [other, 'broken'],
    };
    const foreign = listForeignEntries(input);
    expect(foreign).toEqual([
      { event: 'Stop', index: 0, entry: { matcher: '', hooks: [lint] } },
      { event: 'PreToolUse', index: 0, entry: other },
    ]);
    expect(removeForeignEntries(input, foreign)).toEqual({
      Stop: [
        { matcher: '', hooks: [mine] },
        { matcher: '', hooks: [mine] },
      ],
      PreToolUse: ['broken'],
    });
  });
});
