/** VigilError on the wire: the JSON-RPC code from the one table, and the string code in `data.vigilCode` whatever `data` holds. */
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, JSON_RPC_CODE_BY_ERROR, VigilError, wireData, type VigilErrorCode } from '../src/errors.js';

describe('VigilError.toJsonRpc', () => {
  it('puts the string code alone in data when the error carries no data', () => {
    expect(new VigilError('RUNTIME_STOPPED', 'The runtime is stopped.').toJsonRpc()).toEqual({
      code: -32603,
      message: 'The runtime is stopped.',
      data: { vigilCode: 'RUNTIME_STOPPED' },
    });
  });

  it('keeps -32001 confirmation data where clients read it and adds the code beside it', () => {
    const data = { id: 'ck-1', beatCount: 12, createdAt: '2026-03-01T10:00:00.000Z' };
    const wire = new VigilError('CHECKPOINT_CONFIRMATION_REQUIRED', 'Restoring ck-1 needs confirm: true.', {
      data,
    }).toJsonRpc();
    expect(wire).toEqual({
      code: -32001,
      message: 'Restoring ck-1 needs confirm: true.',
      data: { ...data, vigilCode: 'CHECKPOINT_CONFIRMATION_REQUIRED' },
    });
    // The error itself is unchanged: only its wire form gains the code.
    expect(data).toEqual({ id: 'ck-1', beatCount: 12, createdAt: '2026-03-01T10:00:00.000Z' });
  });

  it('keeps -32602 zod issues an array in data (CONTRACT §4), each issue carrying the code', () => {
    const issues = [{ code: 'invalid_type', expected: 'number', path: ['amountUsd'], message: 'expected number' }];
    const wire = new VigilError('RPC_INVALID_PARAMS', 'Invalid params for budget.topUp: amountUsd: expected number.', {
      data: issues,
    }).toJsonRpc();
    expect(wire).toEqual({
      code: -32602,
      message: expect.any(String),
      data: issues.map((issue) => ({ ...issue, vigilCode: 'RPC_INVALID_PARAMS' })),
    });
  });

  it('keeps CONFIG_INVALID problem data and adds the code when the error reaches a client', () => {
    const data = { variable: 'VIGIL_PORT', value: '99999', allowed: 'a port', problems: [{ variable: 'VIGIL_PORT' }] };
    expect(new VigilError('CONFIG_INVALID', 'VIGIL_PORT="99999" is invalid.', { data }).toJsonRpc()).toEqual({
      code: -32603,
      message: 'VIGIL_PORT="99999" is invalid.',
      data: { ...data, vigilCode: 'CONFIG_INVALID' },
    });
  });

  it.each([
    ['CHECKPOINT_NOT_FOUND', -32004, { id: 'ck-nope' }],
    ['GOAL_NOT_FOUND', -32004, { id: 'g-nope' }],
    ['CHECKPOINT_CORRUPT', -32005, { id: 'ck-1' }],
    ['CHECKPOINT_RESTORE_BUSY', -32009, undefined],
    ['SUBSCRIPTION_LIMIT', -32009, { limit: 16 }],
    ['RPC_RATE_LIMITED', -32029, { limitPerSecond: 200, burst: 1000, retryAfterMs: 5 }],
    ['INTERNAL', -32603, undefined],
  ] as const)('renders %s as %i with its code in data', (vigilCode, code, data) => {
    const wire = new VigilError(vigilCode, 'x', data === undefined ? {} : { data }).toJsonRpc();
    expect(wire).toEqual({ code, message: 'x', data: { ...data, vigilCode } });
  });

  it('puts every code in data, for every code there is', () => {
    for (const vigilCode of Object.values(ERROR_CODES)) {
      const wire = new VigilError(vigilCode, 'x').toJsonRpc();
      expect(wire.code).toBe(JSON_RPC_CODE_BY_ERROR[vigilCode] ?? -32603);
      expect(wire.data).toEqual({ vigilCode });
    }
  });
});

describe('wireData', () => {
  const code: VigilErrorCode = 'INTERNAL';

  it('wraps a primitive under value so it is not lost', () => {
    expect(wireData(code, 'disk full')).toEqual({ vigilCode: code, value: 'disk full' });
    expect(wireData(code, 0)).toEqual({ vigilCode: code, value: 0 });
    expect(wireData(code, null)).toEqual({ vigilCode: code, value: null });
    expect(wireData(code, false)).toEqual({ vigilCode: code, value: false });
  });

  it('wraps a class instance under value rather than spreading its own fields away', () => {
    const at = new Date('2026-03-01T10:00:00.000Z');
    expect(JSON.parse(JSON.stringify(wireData(code, at)))).toEqual({
      vigilCode: code,
      value: '2026-03-01T10:00:00.000Z',
    });
  });

  it('merges into an object without a prototype too', () => {
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { id: 'x' });
    expect(wireData(code, bare)).toEqual({ id: 'x', vigilCode: code });
  });

  it('lets the error code win over a vigilCode the data already carries', () => {
    expect(wireData('SUBSCRIPTION_LIMIT', { vigilCode: 'SUBSCRIPTION_LIMIT', limit: 2 })).toEqual({
      vigilCode: 'SUBSCRIPTION_LIMIT',
      limit: 2,
    });
    expect(wireData('CHECKPOINT_CORRUPT', { vigilCode: 'INTERNAL' })).toEqual({ vigilCode: 'CHECKPOINT_CORRUPT' });
  });
});
