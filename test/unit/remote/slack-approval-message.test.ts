import { describe, expect, it } from 'vitest';
import { remoteSlackSchema } from '../../../src/config/schemas/remote-slack-schema.js';
import { answersOf, resolveSlackConfig } from '../../../src/remote/slack-approval.js';
import { askMessage, outcomeLine } from '../../../src/remote/slack-approval-message.js';
import { socketUrlAllowed } from '../../../src/remote/slack-socket.js';
import type { PermissionAsk } from '../../../src/remote/types.js';

const base = {
  appToken: '${SLACK_APP_TOKEN}',
  botToken: '${SLACK_BOT_TOKEN}',
  channel: 'C0123',
  approvers: ['U0123ABCD'],
};

describe('the remote Slack config', () => {
  it('takes tokens from variables and fills the defaults', () => {
    expect(remoteSlackSchema.parse(base)).toEqual({
      ...base,
      apiBaseUrl: 'https://slack.com/api',
      timeoutMs: 10_000,
    });
  });

  it('refuses approvers that are not Slack user ids, an empty list, and unknown keys', () => {
    for (const approvers of [['@ann'], ['ann@example.com'], ['u0123abcd'], []]) {
      expect(remoteSlackSchema.safeParse({ ...base, approvers }).success).toBe(false);
    }
    expect(remoteSlackSchema.safeParse({ ...base, approver: 'U0123ABCD' }).success).toBe(false);
    for (const apiBaseUrl of [
      'file:///etc/passwd',
      'http://slack.example/api',
      'http://127.0.0.1.evil.example/',
    ]) {
      expect(remoteSlackSchema.safeParse({ ...base, apiBaseUrl }).success).toBe(false);
    }
    for (const apiBaseUrl of [
      'https://slack.example/api',
      'http://127.0.0.1:4000/api',
      'http://localhost/api',
    ]) {
      expect(remoteSlackSchema.safeParse({ ...base, apiBaseUrl }).success).toBe(true);
    }
    const { appToken: _, ...noAppToken } = base;
    expect(remoteSlackSchema.safeParse(noAppToken).success).toBe(false);
  });
});

describe('the remote Slack config, resolved from the environment', () => {
  const config = remoteSlackSchema.parse(base);
  it('takes the tokens from their variables', () => {
    const env = { SLACK_APP_TOKEN: 'xapp-1-secret-app', SLACK_BOT_TOKEN: 'xoxb-secret-bot' };
    expect(resolveSlackConfig(config, env)).toEqual({
      config: { ...config, appToken: 'xapp-1-secret-app', botToken: 'xoxb-secret-bot' },
    });
  });
  it('says which variable is unset, and which token is of the wrong kind, never showing one', () => {
    expect(resolveSlackConfig(config, { SLACK_BOT_TOKEN: 'xoxb-b' })).toEqual({
      error: "remote slack: set SLACK_APP_TOKEN in the daemon's environment",
    });
    const swapped = resolveSlackConfig(config, {
      SLACK_APP_TOKEN: 'xoxb-swapped',
      SLACK_BOT_TOKEN: 'xapp-swapped',
    });
    expect(swapped).toHaveProperty('error', expect.stringContaining('appToken is not an app-level token'));
    expect(JSON.stringify(swapped)).not.toContain('swapped');
    const bot = resolveSlackConfig(config, {
      SLACK_APP_TOKEN: 'xapp-ok',
      SLACK_BOT_TOKEN: 'xoxp-user-token',
    });
    expect(bot).toHaveProperty('error', expect.stringContaining('botToken is not a bot token'));
    expect(JSON.stringify(bot)).not.toContain('user-token');
  });
});

describe('the Socket Mode URL', () => {
  it('is wss, or ws on the loopback interface only', () => {
    expect(socketUrlAllowed('wss://wss-primary.slack.com/link/?ticket=abc')).toBe(true);
    expect(socketUrlAllowed('ws://127.0.0.1:4000/link/?ticket=abc')).toBe(true);
    expect(socketUrlAllowed('ws://evil.example/link/?ticket=abc')).toBe(false);
    expect(socketUrlAllowed('https://slack.com/')).toBe(false);
    expect(socketUrlAllowed('not a url')).toBe(false);
    expect(socketUrlAllowed(`wss://slack.com/${'a'.repeat(5000)}`)).toBe(false);
  });
});

describe('the answers of a block_actions payload', () => {
  const payload = (user: unknown, actions: unknown) => ({ type: 'block_actions', user, actions });
  it('are the hookd buttons clicked, with the clicking user', () => {
    expect(
      answersOf(payload({ id: 'U0123ABCD' }, [{ action_id: 'hookd_allow', value: 'tok_0123456789' }])),
    ).toEqual({
      answers: [{ token: 'tok_0123456789', channel: 'slack', approver: 'U0123ABCD' }],
    });
  });
  it('are none for anything else', () => {
    for (const bad of [
      null,
      'block_actions',
      [],
      { type: 'block_actions' },
      payload({ id: 'U0123ABCD' }, 'x'),
      payload({ id: 'U0123ABCD' }, [{ action_id: 'hookd_allow', value: 'short' }]),
      payload({ id: 'U0123ABCD' }, [{ action_id: 'hookd_allow', value: 'tok 0123456789' }]),
      payload({ id: 'U0123ABCD' }, [{ action_id: 'hookd_maybe', value: 'tok_0123456789' }]),
      payload({ id: { toString: () => 'U0123ABCD' } }, [
        { action_id: 'hookd_allow', value: 'tok_0123456789' },
      ]),
    ]) {
      expect(answersOf(bad)).toHaveProperty('ignored');
    }
  });
});

describe('the message', () => {
  const ask: PermissionAsk = {
    id: 'a1',
    agent: 'droid',
    session: 's',
    project: '/p',
    summary: { title: 't', tool: 'Edit', filePath: '/p/<x>.ts', diff: '-a\n+b & c' },
    expiresAt: Number.NaN,
    tokens: { allow: 'tok_allow_0001', deny: 'tok_deny_0001' },
  };
  it('shows a file and its diff escaped', () => {
    const text = JSON.stringify(askMessage(ask).blocks);
    expect(text).toContain('/p/&lt;x&gt;.ts');
    expect(text).toContain('+b &amp; c');
    expect(text).toContain('Answer before soon');
  });
  it('names who decided as a mention only when it is a Slack user id', () => {
    expect(outcomeLine({ result: 'allow', by: 'U0123ABCD', via: 'slack' })).toBe(
      ':white_check_mark: Allowed by <@U0123ABCD> from Slack',
    );
    expect(outcomeLine({ result: 'deny', by: '<!here>' })).toBe(':no_entry: Denied by &lt;!here&gt;');
    expect(outcomeLine({ result: 'deny', by: 'desktop', via: 'desktop' })).toBe(
      ':no_entry: Denied from the desktop notification',
    );
    expect(outcomeLine({ result: 'cancelled' })).toContain('Cancelled');
  });
});
