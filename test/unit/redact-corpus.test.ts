import { describe, expect, it } from 'vitest';
import { REDACTED, isSecretName, redactDeep, redactText } from '../../src/logging/redact.js';

// Secret shapes built from pieces so that this file itself does not trip secret scanners.
const j = (...parts: string[]) => parts.join('');
const AWS_ID = j('AKIA', 'IOSFODNN7', 'EXAMPLE');
const AWS_SECRET = j('wJalrXUtnFEMI/K7MDENG/', 'bPxRfiCYEXAMPLEKEY');
const GH_PAT = j('ghp_', '16C7e42F292c6912E7710c838347Ae178B4a');
const GH_FINE = j('github_pat_', '11ABCDEFG0', 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUV');
const SLACK_BOT = j('xoxb-', '123456789012-1234567890123-', 'AbCdEfGhIjKlMnOpQrStUvWx');
const SLACK_HOOK = j('https://hooks.slack.com/services/', 'T00000000/B00000000/', 'XXXXXXXXXXXXXXXXXXXXXXXX');
const OPENAI = j('sk-', 'proj-', 'Ab3dEf6hIj9kLmN0pQrStUvWxYz12345');
const ANTHROPIC = j('sk-', 'ant-api03-', 'aB1cD2eF3gH4iJ5kL6mN7oP8qR9sT0uV');
const FACTORY = j('fk-', 'Zt8W2mQ4nR6vY1xK3pL5sD7fG9hJ0aB');
const STRIPE = j('sk_', 'live_', '4eC39HqLyjWDarjtT1zdp7dc');
const GOOGLE = j('AIza', 'SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY');
const GOOGLE_OAUTH = j('ya29.', 'a0AfH6SMBx1234567890abcdefghijk');
const GITLAB = j('glpat-', 'xxxxXXXX1234yyyyZZZZ');
const NPM = j('npm_', 'abcdefghijklmnopqrstuvwxyz0123456789');
const HF = j('hf_', 'abcdefghijklmnopqrstuvwxyzABCDEF12');
const SENDGRID = j('SG.', 'ngeVfQFYQlKU0ufo8x5d1A', '.', 'TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr');
const DO_TOKEN = j('dop_v1_', 'a'.repeat(32), '0123456789abcdef0123456789abcdef');
const JWT = j(
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9',
  '.',
  'eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ',
  '.',
  'SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
);
const PEM = [
  j('-----BEGIN ', 'RSA PRIVATE KEY-----'),
  'MIIEpAIBAAKCAQEA75oVzD2uJu8Xs9y8r0ZlY2mq3H4fW1v0u8Y5x2X0wJm4bN9k',
  'q3H4fW1v0u8Y5x2X0wJm4bN9kMIIEpAIBAAKCAQEA75oVzD2uJu8Xs9y8r0ZlY2m',
  j('-----END ', 'RSA PRIVATE KEY-----'),
].join('\n');

/** Each case: the input, and the secret(s) that must not survive. */
const POSITIVE: Array<[name: string, input: string, secrets: string[]]> = [
  ['AWS access key id', `aws key ${AWS_ID} in a log`, [AWS_ID]],
  ['AWS secret in an env file', `AWS_SECRET_ACCESS_KEY=${AWS_SECRET}`, [AWS_SECRET]],
  ['AWS secret in credentials ini', `aws_secret_access_key=${AWS_SECRET}`, [AWS_SECRET]],
  ['GitHub classic token', `token ${GH_PAT} here`, [GH_PAT]],
  ['GitHub fine-grained token', `GH=${GH_FINE}`, [GH_FINE]],
  ['GitHub token inside a git remote', `https://x-access-token:${GH_PAT}@github.com/o/r.git`, [GH_PAT]],
  ['Slack bot token', `slack: ${SLACK_BOT}`, [SLACK_BOT]],
  ['Slack webhook URL', `posting to ${SLACK_HOOK} now`, [SLACK_HOOK, 'XXXXXXXXXXXXXXXXXXXXXXXX']],
  ['OpenAI project key', `OPENAI_API_KEY=${OPENAI}`, [OPENAI]],
  ['OpenAI key in prose', `use ${OPENAI} for it`, [OPENAI]],
  ['Anthropic key', `key: ${ANTHROPIC}`, [ANTHROPIC]],
  ['Factory key', `FACTORY_API_KEY="${FACTORY}"`, [FACTORY]],
  ['Factory key bare', `curl -H x ${FACTORY}`, [FACTORY]],
  ['Stripe live key', `stripe ${STRIPE}`, [STRIPE]],
  ['Google API key', `maps ${GOOGLE}`, [GOOGLE]],
  ['Google OAuth token', `oauth ${GOOGLE_OAUTH}`, [GOOGLE_OAUTH]],
  ['GitLab token', `gitlab ${GITLAB}`, [GITLAB]],
  ['npm token', `//registry.npmjs.org/:_authToken=${NPM}`, [NPM]],
  ['Hugging Face token', `hf ${HF}`, [HF]],
  ['SendGrid key', `sg ${SENDGRID}`, [SENDGRID]],
  ['DigitalOcean token', `do ${DO_TOKEN}`, [DO_TOKEN]],
  ['JWT', `id token ${JWT}`, [JWT]],
  ['Bearer header', 'Authorization: Bearer abc123DEF456ghi789', ['abc123DEF456ghi789']],
  ['Bearer in curl', "curl -H 'Authorization: Bearer tok_8f7e6d5c4b3a' https://api.x", ['tok_8f7e6d5c4b3a']],
  ['Basic header', 'authorization: Basic dXNlcjpwYXNzd29yZA==', ['dXNlcjpwYXNzd29yZA==']],
  ['Bearer without header', 'sent Bearer 9f8e7d6c5b4a39281706 to it', ['9f8e7d6c5b4a39281706']],
  ['Authorization in JSON', '{"Authorization":"Bearer s3cr3tvalue99"}', ['s3cr3tvalue99']],
  [
    'private key block',
    `key:\n${PEM}\nend`,
    ['MIIEpAIBAAKCAQEA75oVzD2uJu8Xs9y8r0ZlY2mq3H4fW1v0u8Y5x2X0wJm4bN9k'],
  ],
  [
    'private key block cut off',
    `${j('-----BEGIN ', 'OPENSSH PRIVATE KEY-----')}\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU`,
    ['b3BlbnNzaC1rZXktdjEAAAAABG5vbmU'],
  ],
  [
    'private key block in JSON string',
    JSON.stringify({ content: PEM }),
    ['q3H4fW1v0u8Y5x2X0wJm4bN9kMIIEpAIBAAKCAQEA75oVzD2uJu8Xs9y8r0ZlY2m'],
  ],
  ['postgres URL password', 'DATABASE_URL=postgres://app:hunter2pass@db.local:5432/app', ['hunter2pass']],
  ['https URL password', 'fetch https://ann:correct-horse@example.com/x', ['correct-horse']],
  ['token as URL user', `https://${'a1b2c3d4e5f6a7b8c9d0e1f2'}@github.com/o/r`, ['a1b2c3d4e5f6a7b8c9d0e1f2']],
  ['access_token query', 'GET https://api.x/y?access_token=abcDEF123&page=2', ['abcDEF123']],
  ['api_key query', 'https://api.x/y?foo=1&api_key=zzz999yyy', ['zzz999yyy']],
  [
    'S3 presigned signature',
    'https://b.s3.amazonaws.com/k?X-Amz-Signature=deadbeef1234&X-Amz-Date=1',
    ['deadbeef1234'],
  ],
  [
    'env file lines',
    'DB_PASSWORD=pa55word!\nGITHUB_TOKEN=tok123abc\nexport SECRET_KEY=shh-its-secret',
    ['pa55word!', 'tok123abc', 'shh-its-secret'],
  ],
  ['env single-quoted', "API_KEY='quoted value 123'", ['quoted value 123']],
  ['shell prefix assignment', 'NPM_TOKEN=abc123xyz npm publish', ['abc123xyz']],
  ['JSON secret field', '{"password":"p@ss w0rd","user":"ann"}', ['p@ss w0rd']],
  ['JSON camelCase apiKey', '{"apiKey": "k-123-abc"}', ['k-123-abc']],
  ['escaped JSON in a log string', '"{\\"client_secret\\":\\"cs-42-xyz\\"}"', ['cs-42-xyz']],
  [
    'Azure connection string',
    'DefaultEndpointsProtocol=https;AccountName=a;AccountKey=Zm9vYmFyYmF6cXV4MTIz==;',
    ['Zm9vYmFyYmF6cXV4MTIz=='],
  ],
];

/** Text that looks a little like a secret and must come out unchanged. */
const NEAR_MISSES: Array<[name: string, input: string]> = [
  ['git SHA', 'commit 9fceb02d0ae598e95dc970b74767f19372d61af8 fixed it'],
  ['short git SHA', 'see 9fceb02 and a1b2c3d'],
  ['UUID', 'session 48e23316-6280-4a11-966d-13493854823f ended'],
  ['sk- in prose', 'we use sk-learn style pipelines and the sk-tree'],
  ['long kebab word after sk-', 'the sk-some-long-hyphenated-identifier-name option'],
  ['token as a word', 'the token budget was 4000 tokens; each token counts'],
  ['token counts in a log', 'input tokens=1234 output tokens=56 max_tokens=4096'],
  ['tokens JSON numbers', '{"inputTokens": 60, "outputTokens": 30, "tokenUsage": {"thinkingTokens": 0}}'],
  ['secret as a word', 'the secret to good tests is real processes'],
  ['password as a word', 'enter your password when asked'],
  ['Bearer in prose', 'Bearer tokens are sent in headers; Bearer authentication is common'],
  [
    'base64 image in text',
    'img data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg== done',
  ],
  ['email address', 'mail ann@example.com about it'],
  ['ssh git remote', 'git@github.com:hookd/hookd.git and ssh://git@github.com/hookd/hookd'],
  ['URL with port and path', 'http://localhost:8080/a/b@c?page=2&sort=asc'],
  ['MONKEY is not a KEY', 'MONKEY=banana\nKEYBOARD_LAYOUT=us\nNODE_ENV=production\nPATH=/usr/bin'],
  ['env reference', 'GITHUB_TOKEN=$GITHUB_TOKEN and API_KEY=${API_KEY}'],
  ['empty secret', 'PASSWORD=\nAPI_KEY=""'],
  [
    'secret metadata names',
    'TOKEN_COUNT=5 SECRET_FILE=/run/s API_KEY_PATH=/etc/k SSH_AUTH_SOCK=/tmp/agent.1',
  ],
  ['JSON key field', '{"key": "Enter", "keys": ["a"], "monkey": "x"}'],
  ['a hash of a file', 'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
  ['a Droid tool name', 'mcp__github__create_pull_request and ApplyPatch'],
  ['numbers and versions', 'v0.225.2 took 1207ms at 2026-11-22T11:32:36.789Z'],
  ['AKIA-ish but short', 'AKIA1234 is not a key'],
  ['authorization in prose', 'authorization is required for this step'],
  [
    'BEGIN PUBLIC KEY',
    '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----',
  ],
];

describe('redactText corpus: secrets', () => {
  it.each(POSITIVE)('%s', (_name, input, secrets) => {
    const out = redactText(input);
    for (const secret of secrets) expect(out).not.toContain(secret);
    expect(out).toContain(REDACTED);
  });
});

describe('redactText corpus: near-misses survive', () => {
  it.each(NEAR_MISSES)('%s', (_name, input) => {
    expect(redactText(input)).toBe(input);
  });
});

describe('redactText properties', () => {
  it('is idempotent over the whole corpus', () => {
    for (const [, input] of POSITIVE) {
      const once = redactText(input);
      expect(redactText(once)).toBe(once);
    }
  });

  it('keeps the harmless context around a secret', () => {
    expect(redactText('Authorization: Bearer abc123DEF456ghi789')).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(redactText('DB_PASSWORD=pa55word! # db')).toBe(`DB_PASSWORD=${REDACTED} # db`);
    expect(redactText('postgres://app:hunter2pass@db.local/app')).toBe(
      `postgres://app:${REDACTED}@db.local/app`,
    );
    expect(redactText("API_KEY='x 123'")).toBe(`API_KEY='${REDACTED}'`);
    expect(redactText('{"password":"x1"}')).toBe(`{"password":"${REDACTED}"}`);
  });

  it('leaves empty and secret-free text as the same string', () => {
    expect(redactText('')).toBe('');
    const plain = 'All done: ran echo hi, created hook-demo.txt and ran a sub-agent.';
    expect(redactText(plain)).toBe(plain);
  });

  it('hides the home directory only when asked', () => {
    const text = 'edited /home/ann/projects/demo/a.ts and /home/annex/b and "/home/ann"';
    expect(redactText(text, { home: '/home/ann' })).toBe(text);
    expect(redactText(text, { homePaths: true, home: '/home/ann/' })).toBe(
      'edited ~/projects/demo/a.ts and /home/annex/b and "~"',
    );
  });

  it('defaults the home directory to $HOME', () => {
    const home = process.env.HOME;
    expect(home).toBeTruthy();
    expect(redactText(`${home}/x`, { homePaths: true })).toBe('~/x');
  });
});

describe('isSecretName', () => {
  it.each([
    'OPENAI_API_KEY',
    'apiKey',
    'client_secret',
    'GITHUB_TOKEN',
    'db-password',
    'AWS_SECRET_ACCESS_KEY',
  ])('%s is secret', (name) => expect(isSecretName(name, true)).toBe(true));
  it.each([
    'inputTokens',
    'tokenUsage',
    'monkey',
    'key',
    'keyboard',
    'max_tokens',
    'tokenCount',
    'secretFile',
  ])('%s is not secret in JSON', (name) => expect(isSecretName(name, true)).toBe(false));
});

describe('redactDeep', () => {
  it('redacts strings everywhere and secret-named fields whole, without touching the input', () => {
    const input = {
      apiKey: 'plainvalue',
      nested: [{ note: `token ${GH_PAT}`, password: 'hunter2' }, 42, null, true],
      tokenUsage: { inputTokens: 60 },
      headers: { authorization: 'Bearer abc123DEF456ghi789', accept: 'application/json' },
      when: new Date(0),
    };
    const out = redactDeep(input);
    expect(out.apiKey).toBe(REDACTED);
    expect(out.nested[0]).toEqual({ note: `token ${REDACTED}`, password: REDACTED });
    expect(out.nested.slice(1)).toEqual([42, null, true]);
    expect(out.tokenUsage).toEqual({ inputTokens: 60 });
    expect(out.headers).toEqual({ authorization: REDACTED, accept: 'application/json' });
    expect(out.when).toBeInstanceOf(Date);
    expect(input.apiKey).toBe('plainvalue');
  });

  it('survives cycles and turns errors into plain redacted objects', () => {
    const a: Record<string, unknown> = { name: 'a' };
    a.self = a;
    expect(redactDeep(a)).toEqual({ name: 'a', self: '[Circular]' });
    const error = new Error(`failed with ${OPENAI}`);
    const out = redactDeep({ error }) as { error: { message: string; name: string } };
    expect(out.error.name).toBe('Error');
    expect(out.error.message).toBe(`failed with ${REDACTED}`);
  });

  it('applies home-path redaction to nested strings', () => {
    expect(redactDeep({ cwd: '/home/ann/p' }, { homePaths: true, home: '/home/ann' })).toEqual({
      cwd: '~/p',
    });
  });
});
