/**
 * What the scope tests share: a gateway with one token of each scope, sample params for every method of the catalogue
 * (a method without a sample is called with `{}`: the scope check comes before the params), and a snapshot of every
 * state a call could change, read with the daemon's token.
 */
import { RPC_METHODS, type RpcMethodName } from '../../src/protocol/rpc-methods.js';
import { scopeAllows, TOKEN_SCOPES, type TokenScope } from '../../src/protocol/token-scopes.js';
import { startGatewayHarness, type GatewayHarness, type RawClient } from './gateway.fixture.js';

/** Every method of the catalogue, in its order. */
export const ALL_METHOD_NAMES = Object.keys(RPC_METHODS) as RpcMethodName[];

/** True when a token of `scope` may call `method`, as the catalogue declares. */
export const mayCall = (scope: TokenScope, method: RpcMethodName): boolean =>
  scopeAllows(scope, RPC_METHODS[method].scope);

/** A gateway, a token (its secret) per scope, and the ids the sample params point at. */
export interface ScopedGateway {
  h: GatewayHarness;
  tokens: Record<TokenScope, string>;
  /** A raw client holding the daemon's own token. */
  admin: RawClient;
  params: Partial<Record<RpcMethodName, Record<string, unknown>>>;
}

/** Starts the gateway and makes a checkpoint, a goal, a schedule, a webhook endpoint and a spare token for calls to act on. */
export async function startScopedGateway(
  options: Parameters<typeof startGatewayHarness>[0] = {},
): Promise<ScopedGateway> {
  // The webhook endpoint it makes is a local address (nothing listens there): allowed as a same-host receiver would be.
  const runtime = { ...options.runtime, config: { webhookAllowPrivate: true, ...options.runtime?.config } };
  const h = await startGatewayHarness({ ...options, runtime });
  const admin = await h.connect();
  const tokens = {} as Record<TokenScope, string>;
  for (const scope of TOKEN_SCOPES) tokens[scope] = (await h.runtime.tokens.create({ scope, name: scope })).token;
  await h.runtime.tokens.create({ scope: 'read', name: 'spare' });
  const checkpoint = (await h.until(admin.request('checkpoint.create'))).result as { id: string };
  const goal = (await admin.request('goals.add', { title: 'sample goal' })).result as { id: string };
  const schedule = (await admin.request('schedules.add', { text: 'tick', everyMs: 3_600_000 })).result as {
    id: string;
  };
  // Of a type nothing emits, at a port nothing listens on: no delivery changes it while the scopes are tried.
  const webhook = (await admin.request('webhooks.add', { url: 'http://127.0.0.1:9/hook', types: ['sample.never'] }))
    .result as { id: string };
  const exported = (await admin.request('checkpoint.export', { id: checkpoint.id })).result;
  const params: ScopedGateway['params'] = {
    'checkpoint.get': { id: checkpoint.id },
    'checkpoint.restore': { id: checkpoint.id, confirm: true },
    'checkpoint.export': { id: checkpoint.id },
    'checkpoint.import': { document: exported },
    'budget.topUp': { amountUsd: 5 },
    'budget.setCap': { dailyCapUsd: 99 },
    'goals.add': { title: 'a goal from a narrow token' },
    'goals.complete': { id: goal.id },
    'memory.search': { query: 'anything' },
    'conversation.search': { query: 'anything' },
    'memory.forget': { id: 'mem-unknown' },
    'agent.send': { text: 'hello' },
    'events.history': { limit: 5 },
    'events.unsubscribe': { subscription: 'sub-none' },
    'tools.approve': { callId: 'call-none' },
    'tools.deny': { callId: 'call-none', reason: 'no' },
    'thinks.get': { id: 'think-none' },
    'tasks.cancel': { id: 'task-none' },
    'schedules.add': { text: 'another', everyMs: 3_600_000 },
    'schedules.remove': { id: schedule.id },
    'schedules.pause': { id: schedule.id },
    'schedules.resume': { id: schedule.id },
    'tokens.create': { scope: 'operate', name: 'escalated' },
    'tokens.revoke': { name: 'spare' },
    'webhooks.add': { url: 'http://127.0.0.1:9/other', types: ['sample.never'] },
    'webhooks.remove': { id: webhook.id },
    'webhooks.enable': { id: webhook.id },
    'webhooks.test': { id: webhook.id },
    'webhooks.deliveries': { id: webhook.id },
    'webhooks.redeliver': { id: webhook.id, afterSeq: 0 },
  };
  return { h, tokens, admin, params };
}

/** Every state a method of the catalogue can change, read with the daemon's token (no clock moves meanwhile). */
export async function snapshot(admin: RawClient): Promise<Record<string, unknown>> {
  const read = async (method: string, params?: unknown): Promise<unknown> =>
    (await admin.request(method, params)).result;
  const status = (await read('heartbeat.status')) as Record<string, unknown>;
  return {
    beatCount: status['beatCount'],
    restoredFrom: status['restoredFrom'],
    checkpoints: await read('checkpoint.list'),
    budget: await read('budget.status'),
    goals: await read('goals.list'),
    memory: await read('memory.list'),
    conversation: await read('conversation.list'),
    tools: await read('tools.pending'),
    tasks: await read('tasks.list'),
    schedules: await read('schedules.list'),
    webhooks: await read('webhooks.list'),
    // lastUsedAt moves when a token is used, which is not a change a refused call made.
    tokens: ((await read('tokens.list')) as Array<Record<string, unknown>>).map(({ lastUsedAt: _, ...rest }) => rest),
  };
}
