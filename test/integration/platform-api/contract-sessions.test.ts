import { describe, expect, it } from 'vitest';
import {
  NotFoundError,
  RequestValidationError,
  ResponseValidationError,
} from '../../../src/platform-api/errors.js';
import { useSimulator } from './sim-fixture.js';

describe('sessions and messages contract', () => {
  const f = useSimulator();
  const firstSession = () => [...f.sim.state.sessions.values()][0]!;

  it('updates session tags and returns the session with read-only usage intact', async () => {
    const session = firstSession();
    const updated = await f.client('member').updateSession(session.sessionId, {
      sessionSettings: {
        tags: [{ name: 'ledger:done', metadata: { cost: 3 } }],
        archivedAt: '2026-11-20T00:00:00Z',
      },
    });
    expect(updated.sessionId).toBe(session.sessionId);
    expect(updated.sessionSettings?.tags).toEqual([{ name: 'ledger:done', metadata: { cost: 3 } }]);
    expect(updated.sessionSettings?.tokenUsage?.inputTokens).toBeGreaterThan(0);
    expect(updated.messageCount).toBe(session.messages.length);
    expect(['idle', 'pending', 'running']).toContain(updated.status);
  });

  it('reads a message, with or without computerId', async () => {
    const session = firstSession();
    const messageId = session.messages[1]!.id as string;
    const message = await f.client().getMessage(session.sessionId, messageId);
    expect(message).toMatchObject({ id: messageId, role: 'assistant' });
    expect(message.content[0]!.text).toBeTypeOf('string');
    // Content items carry a field the spec does not show.
    expect((message.content[0] as Record<string, unknown>).type).toBe('text');
    const viaComputer = await f
      .client()
      .getMessage(session.sessionId, messageId, { computerId: session.computerId });
    expect(viaComputer.id).toBe(messageId);
    expect(f.sent.at(-1)).toContain(`computerId=${session.computerId}`);
  });

  it('404s: unknown session, unknown message, unknown computer', async () => {
    const session = firstSession();
    const client = f.client();
    await expect(client.updateSession('sess_missing', {})).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.getMessage(session.sessionId, 'msg_missing')).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      client.getMessage(session.sessionId, session.messages[0]!.id as string, { computerId: 'cmp_missing' }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });

  it('refuses read-only or unknown settings before sending', () => {
    const client = f.client();
    expect(() =>
      client.updateSession('sess_1', { sessionSettings: { tokenUsage: { inputTokens: 1 } } as never }),
    ).toThrow(/sessionSettings\.tokenUsage: is read-only/);
    expect(() => client.updateSession('sess_1', { sessionSettings: { colour: 'red' } as never })).toThrow(
      /sessionSettings\.colour: is not a writable session setting/,
    );
    expect(() => client.updateSession('sess_1', { sessionSettings: { tags: [{ name: '' }] } })).toThrow(
      /sessionSettings\.tags\[0\]\.name/,
    );
    expect(() => client.getMessage('', 'm')).toThrow(RequestValidationError);
    expect(f.sent).toEqual([]);
  });

  it('a message with an undocumented role becomes a typed error naming the field', async () => {
    const session = firstSession();
    f.sim.injectFault({
      path: /\/messages\//,
      transform: (body) => ({ ...(body as object), role: 'robot' }),
    });
    const error = await f
      .client()
      .getMessage(session.sessionId, session.messages[0]!.id as string)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues[0]!.field).toBe('role');
  });
});
