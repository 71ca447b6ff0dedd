import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/resolve.js';
import { validateConfigObject } from '../../../src/config/validate.js';

const ntfy = {
  server: 'https://ntfy.example.com',
  topic: 'asks',
  replyTopic: 'answers',
  token: '${NTFY_TOKEN}',
  replyToken: '${NTFY_REPLY_TOKEN}',
};

const slack = {
  appToken: '${SLACK_APP_TOKEN}',
  botToken: '${SLACK_BOT_TOKEN}',
  channel: 'C0123ABCD',
  approvers: ['U012ABCDEF'],
};

const messages = (result: ReturnType<typeof validateConfigObject>) =>
  result.ok ? [] : result.issues.map((i) => `${i.path}: ${i.message}`);

describe('the remote section of the config', () => {
  it('takes an ntfy channel on an access-controlled server with a token', () => {
    const result = validateConfigObject({ remote: { ntfy } }, 'c.json');
    expect(messages(result)).toEqual([]);
    expect(result.ok && result.config.remote).toMatchObject({
      enabled: true,
      waitSec: 55,
      maxPendingPerSession: 2,
    });
  });

  it('takes a Slack channel with its approvers and the desktop switch', () => {
    const result = validateConfigObject({ remote: { slack, desktop: {} } }, 'c.json');
    expect(messages(result)).toEqual([]);
    expect(result.ok && result.config.remote).toMatchObject({
      slack: { approvers: ['U012ABCDEF'], apiBaseUrl: 'https://slack.com/api' },
      desktop: { enabled: true },
    });
  });

  it('keeps the Slack approvers in one place: the slack section', () => {
    const moved = validateConfigObject({ remote: { slack, approvers: { slack: ['U0OTHER1'] } } }, 'c');
    expect(messages(moved).join()).toMatch(/approvers/);
    const { approvers: _approvers, ...none } = slack;
    expect(messages(validateConfigObject({ remote: { slack: none } }, 'c')).join()).toContain(
      'remote.slack.approvers',
    );
  });

  it('refuses the public ntfy.sh, a server without a token, plain http off this machine, one topic for both', () => {
    expect(
      messages(validateConfigObject({ remote: { ntfy: { ...ntfy, server: 'https://ntfy.sh' } } }, 'c')),
    ).toEqual([expect.stringContaining('ntfy.sh is a public server')]);
    const { token: _token, ...noToken } = ntfy;
    expect(messages(validateConfigObject({ remote: { ntfy: noToken } }, 'c')).join()).toContain(
      'remote.ntfy.token',
    );
    expect(
      messages(
        validateConfigObject({ remote: { ntfy: { ...ntfy, server: 'http://ntfy.example.com' } } }, 'c'),
      ),
    ).toEqual([expect.stringContaining('use https')]);
    expect(
      messages(validateConfigObject({ remote: { ntfy: { ...ntfy, replyTopic: 'asks' } } }, 'c')),
    ).toEqual([expect.stringContaining('a topic of its own')]);
    // The buttons' token travels in every notification: never the main one, never left out.
    expect(
      messages(validateConfigObject({ remote: { ntfy: { ...ntfy, replyToken: ntfy.token } } }, 'c')),
    ).toEqual([expect.stringContaining('a token of its own')]);
    const { replyToken: _reply, ...noReplyToken } = ntfy;
    expect(messages(validateConfigObject({ remote: { ntfy: noReplyToken } }, 'c')).join()).toContain(
      'remote.ntfy.replyToken',
    );
  });

  it('refuses a project file that names an approver or a channel, trusted or not', () => {
    const evil = { ...slack, approvers: ['U0EVIL'] };
    for (const remote of [{ slack: evil }, { desktop: { enabled: true } }, { ntfy }, { enabled: true }]) {
      const result = validateConfigObject({ remote }, '/repo/.hookd/config.json', 'project');
      expect(result.ok).toBe(false);
      expect(messages(result).join()).toMatch(/a project file may only turn remote answers off/);
    }
  });

  it('lets a trusted project file turn remote answers off for its project (the kill switch)', () => {
    const user = JSON.stringify({ remote: { ntfy } });
    const loaded = resolveConfig([
      { level: 'user', file: '/u/config.json', text: user },
      { level: 'project', file: '/p/.hookd/config.json', text: '{"remote": {"enabled": false}}' },
    ]);
    expect(loaded.sources.every((s) => s.ok)).toBe(true);
    expect(loaded.config.remote).toMatchObject({ enabled: false, ntfy: { topic: 'asks' } });
    const alone = resolveConfig([{ level: 'user', file: '/u/config.json', text: user }]);
    expect(alone.config.remote?.enabled).toBe(true);
  });

  it('takes the examples of docs/remote.md as written', () => {
    const doc = readFileSync('docs/remote.md', 'utf8');
    for (const name of ['remote-ntfy', 'remote-slack', 'remote-desktop']) {
      const block = new RegExp(`<!-- example: ${name} -->\\s*\`\`\`json\\n([\\s\\S]*?)\`\`\``).exec(doc);
      expect(block, name).not.toBeNull();
      expect(messages(validateConfigObject(JSON.parse(block![1]!), 'docs/remote.md'))).toEqual([]);
    }
  });
});
