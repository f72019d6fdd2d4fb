/** The typed client's RpcError: the wire error as sent, with Vigil's string code read out of it. */
import { describe, expect, it } from 'vitest';
import { RpcError } from '../../src/client/rpc-error.js';
import { VigilError } from '../../src/errors.js';

describe('RpcError', () => {
  it('exposes data.vigilCode as vigilCode and keeps the rest of data as sent', () => {
    const wire = new VigilError('CHECKPOINT_CONFIRMATION_REQUIRED', 'confirm', {
      data: { id: 'ck-1', beatCount: 3, createdAt: 'x' },
    }).toJsonRpc();
    const err = new RpcError(wire, 'checkpoint.restore');
    expect(err).toMatchObject({
      code: -32001,
      vigilCode: 'CHECKPOINT_CONFIRMATION_REQUIRED',
      method: 'checkpoint.restore',
    });
    expect(err.data).toEqual({
      id: 'ck-1',
      beatCount: 3,
      createdAt: 'x',
      vigilCode: 'CHECKPOINT_CONFIRMATION_REQUIRED',
    });
    expect(err.toJSON()).toEqual(wire);
  });

  it('tells apart errors that share a JSON-RPC code by their vigilCode', () => {
    const checkpoint = new RpcError(new VigilError('CHECKPOINT_NOT_FOUND', 'no').toJsonRpc(), 'checkpoint.get');
    const goal = new RpcError(new VigilError('GOAL_NOT_FOUND', 'no').toJsonRpc(), 'goals.complete');
    expect([checkpoint.code, goal.code]).toEqual([-32004, -32004]);
    expect([checkpoint.vigilCode, goal.vigilCode]).toEqual(['CHECKPOINT_NOT_FOUND', 'GOAL_NOT_FOUND']);
  });

  it('names the protocol fault of a bare -32700, -32600 or -32601 (sent without data, as the specification writes them)', () => {
    expect(new RpcError({ code: -32700, message: 'Parse error' }, '').vigilCode).toBe('RPC_PARSE_ERROR');
    expect(new RpcError({ code: -32600, message: 'Invalid Request' }, '').vigilCode).toBe('RPC_INVALID_REQUEST');
    expect(new RpcError({ code: -32601, message: 'Method not found' }, 'foo').vigilCode).toBe('RPC_METHOD_NOT_FOUND');
  });

  it('has no vigilCode for an error from a server that sends none', () => {
    expect(new RpcError({ code: -32000, message: 'Server error' }, 'x').vigilCode).toBeUndefined();
    expect(
      new RpcError({ code: -32602, message: 'Invalid params', data: [{ path: [] }] }, 'x').vigilCode,
    ).toBeUndefined();
    expect(
      new RpcError({ code: -32603, message: 'Internal error', data: { vigilCode: 42 } }, 'x').vigilCode,
    ).toBeUndefined();
  });
});
