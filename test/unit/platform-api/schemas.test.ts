import { describe, expect, it } from 'vitest';
import {
  groupedTokensResponseSchema,
  tokensResponseSchema,
  usersResponseSchema,
} from '../../../src/platform-api/schemas/analytics.js';
import {
  enterpriseControlChangeSchema,
  creditLimitsResponseSchema,
} from '../../../src/platform-api/schemas/organization.js';
import { computerSchema } from '../../../src/platform-api/schemas/computers.js';
import { sessionSchema } from '../../../src/platform-api/schemas/sessions.js';

const meta = { org_id: 'org_1', start_date: '2026-11-01', end_date: '2026-11-01' };

describe('resource schemas', () => {
  it('grouped and ungrouped token rows are different shapes', () => {
    const grouped = {
      data: [{ date: '2026-11-01', group_key: 'm', billable_tokens: 1, input_tokens: 2, output_tokens: 3 }],
      meta,
    };
    expect(groupedTokensResponseSchema.safeParse(grouped).success).toBe(true);
    expect(tokensResponseSchema.safeParse(grouped).success).toBe(false);
  });

  it('keeps unknown fields at every level', () => {
    const parsed = computerSchema.parse({
      id: 'c',
      name: 'n',
      providerType: 'e2b',
      createdAt: 1,
      region: 'eu',
      provisioningSteps: [{ id: 's', status: 'queued', attempt: 2 }],
    });
    expect(parsed).toMatchObject({ region: 'eu', provisioningSteps: [{ attempt: 2 }] });
  });

  it('enforces required fields and documented enums', () => {
    expect(
      sessionSchema.safeParse({ sessionId: 's', status: 'idle', messageCount: 1, createdAt: 1 }).success,
    ).toBe(false);
    expect(
      sessionSchema.safeParse({ sessionId: 's', status: 'done', messageCount: 1, createdAt: 1, updatedAt: 1 })
        .success,
    ).toBe(false);
    expect(
      sessionSchema.safeParse({
        sessionId: 's',
        status: 'idle',
        messageCount: 1.5,
        createdAt: 1,
        updatedAt: 1,
      }).success,
    ).toBe(false);
    const user = { user_id: 'u', user_email: null, date: '2026-11-01', delegation_level: 'yolo' };
    const issues = usersResponseSchema
      .safeParse({ data: [user], meta })
      .error!.issues.map((i) => i.path.join('.'));
    expect(issues).toContain('data.0.delegation_level');
    expect(issues).toContain('data.0.tool_calls');
  });

  it('keeps the allowAllFactoryModels spelling', () => {
    const change = enterpriseControlChangeSchema.parse({
      revision: 1,
      settings: { modelPolicy: { allowAllFactoryModels: true } },
      user: { id: 'u' },
      updatedAt: '2026-11-01T00:00:00Z',
    });
    expect(change.settings.modelPolicy?.allowAllFactoryModels).toBe(true);
  });

  it('credit-limit responses need both updated and errors', () => {
    expect(creditLimitsResponseSchema.safeParse({ updated: [], errors: [] }).success).toBe(true);
    expect(creditLimitsResponseSchema.safeParse({ updated: [] }).success).toBe(false);
  });
});
