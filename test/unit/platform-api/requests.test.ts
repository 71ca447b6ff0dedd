import { describe, expect, it } from 'vitest';
import { RequestValidationError } from '../../../src/platform-api/errors.js';
import {
  analyticsUsersQuerySchema,
  createComputerSchema,
  creditLimitsSchema,
  dateRangeSchema,
  orgPageQuerySchema,
  tokensQuerySchema,
  validateRequest,
} from '../../../src/platform-api/requests.js';

const TODAY = '2026-11-20';

function fields(schema: Parameters<typeof validateRequest>[1], input: unknown): string[] {
  try {
    validateRequest('op', schema, input);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(RequestValidationError);
    return (error as RequestValidationError).issues.map((i) => i.field);
  }
}

describe('analytics date rules', () => {
  const schema = dateRangeSchema(TODAY);
  it('accepts the earliest day through yesterday', () => {
    expect(fields(schema, { startDate: '2026-01-14', endDate: '2026-11-19' })).toEqual([]);
  });
  it('refuses today, the future, before 2026-01-14, bad formats, impossible days, and start after end', () => {
    expect(fields(schema, { startDate: '2026-11-19', endDate: TODAY })).toEqual(['endDate']);
    expect(fields(schema, { startDate: '2027-01-01', endDate: '2027-01-02' })).toEqual([
      'startDate',
      'endDate',
    ]);
    expect(fields(schema, { startDate: '2026-01-13', endDate: '2026-01-20' })).toEqual(['startDate']);
    expect(fields(schema, { startDate: '20261101', endDate: '2026-11-01T00:00:00Z' })).toEqual([
      'startDate',
      'endDate',
    ]);
    expect(fields(schema, { startDate: '2026-02-29', endDate: '2026-03-01' })).toEqual(['startDate']);
    expect(fields(schema, { startDate: '2026-11-05', endDate: '2026-11-04' })).toEqual(['startDate']);
    expect(fields(schema, {})).toEqual(['startDate', 'endDate']);
  });
  it('says what to use instead of today', () => {
    expect(() => validateRequest('GET x', schema, { startDate: TODAY, endDate: TODAY })).toThrow(
      /24-hour lag, use 2026-11-19 or earlier/,
    );
  });
  it('group_by values per endpoint, and the users limit range', () => {
    expect(
      fields(tokensQuerySchema(TODAY), { startDate: '2026-11-01', endDate: '2026-11-02', groupBy: 'client' }),
    ).toEqual(['groupBy']);
    expect(
      fields(tokensQuerySchema(TODAY), { startDate: '2026-11-01', endDate: '2026-11-02', groupBy: 'model' }),
    ).toEqual([]);
    const users = analyticsUsersQuerySchema(TODAY);
    for (const limit of [0, 101, 2.5])
      expect(fields(users, { startDate: '2026-11-01', endDate: '2026-11-02', limit })).toEqual(['limit']);
    expect(
      fields(users, { startDate: '2026-11-01', endDate: '2026-11-02', limit: 100, cursor: 'user_1' }),
    ).toEqual([]);
  });
});

describe('v0 request rules', () => {
  it('string-typed limits accept numbers and digit strings and send strings', () => {
    expect(validateRequest('op', orgPageQuerySchema, { limit: 5 })).toEqual({ limit: '5' });
    expect(validateRequest('op', orgPageQuerySchema, { limit: '100' })).toEqual({ limit: '100' });
    expect(fields(orgPageQuerySchema, { limit: '101' })).toEqual(['limit']);
    expect(fields(orgPageQuerySchema, { limit: '-1' })).toEqual(['limit']);
  });
  it('computer names 1-63, repos at most 20 URLs of at most 2048 characters, hostId a UUID', () => {
    expect(fields(createComputerSchema, { name: 'a'.repeat(63), remoteUser: 'u' })).toEqual([]);
    expect(fields(createComputerSchema, { name: '', remoteUser: 'u'.repeat(64) })).toEqual([
      'name',
      'remoteUser',
    ]);
    expect(fields(createComputerSchema, { name: 'a', remoteUser: 'u', repos: ['not a url'] })).toEqual([
      'repos[0]',
    ]);
    expect(
      fields(createComputerSchema, {
        name: 'a',
        remoteUser: 'u',
        hostId: '123e4567-e89b-12d3-a456-42661417400',
      }),
    ).toEqual(['hostId']);
    expect(fields(createComputerSchema, { name: 'a', remoteUser: 'u', provider: 'aws' })).toEqual([
      'provider',
    ]);
    expect(fields(createComputerSchema, { name: 'a', remoteUser: 'u', colour: 'red' })).toEqual(['colour']);
  });
  it('credit limits: 1-100 entries with e-mail addresses and whole numbers, no duplicates', () => {
    expect(fields(creditLimitsSchema, [{ email: 'a@acme.example', limit: 0 }])).toEqual([]);
    expect(fields(creditLimitsSchema, [{ email: 'a@acme', limit: 1 }])).toEqual(['[0].email']);
    expect(fields(creditLimitsSchema, [{ email: 'a@acme.example', limit: '5' }])).toEqual(['[0].limit']);
  });
});
