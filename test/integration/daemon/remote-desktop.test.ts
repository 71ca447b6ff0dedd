import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { remoteRecordFile } from '../../../src/remote/answers.js';
import type { BrokerRecord } from '../../../src/remote/broker.js';
import { describeWithDesktop, startDesktopSession } from '../../helpers/desktop-session.js';
import { jsonLines } from '../../helpers/json-lines.js';
import { tempEnv, waitFor } from './helpers.js';
import { useProcessCleanup, writeConfig } from './process-helpers.js';
import { decision, permissionRequest, runHook } from './remote-setup.js';

/**
 * `remote.desktop` in the real daemon: the daemon runs inside a desktop session (Xvfb, a private D-Bus,
 * dunst), the built hook asks, and the test picks Deny from the notification's actions as a user would.
 */
const { pids, cleanups } = useProcessCleanup();

describeWithDesktop('remote answers on the desktop notification', () => {
  it('Deny on the notification answers the prompt, recorded as from the desktop', async () => {
    const temp = tempEnv();
    cleanups.push(temp.cleanup);
    const project = join(temp.root, 'project');
    mkdirSync(project, { recursive: true });
    const env = temp.env;
    writeConfig(env, {
      notify: { presence: { source: 'off' } },
      remote: { desktop: { enabled: true } },
    });
    const session = await startDesktopSession(temp.root, env);
    cleanups.push(() => session.stop());
    const ran = runHook({ env, project, pids }, permissionRequest({ project }, 'touch desk-denied.out'));
    const shown = await waitFor(
      // The ask's own notification (the plain "waiting" one may be shown too).
      () => session.shown().find((n) => n.body.startsWith('Tool: Bash~') && n.body.includes('desk-denied')),
      20_000,
      'the notification with Allow and Deny',
    );
    const menu = await session.chooseAction('deny', shown.summary);
    expect(menu).toContain('#Allow');
    const done = await ran;
    expect(decision(done)).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PermissionRequest',
        decision: { behavior: 'deny', message: 'Denied remotely (desktop) by the user.' },
      },
    });
    const records = jsonLines<BrokerRecord>(remoteRecordFile(env));
    expect(records.find((r) => r.kind === 'decided')).toMatchObject({
      result: 'deny',
      by: 'desktop',
      via: 'desktop',
    });
  });
});
