/**
 * A server's error in a friendly subcommand is one human line (the message and what to do), `--json` keeps the
 * JSON-RPC error object; and `vigil webhooks list` says why the last attempt failed when no HTTP status came back.
 */
import { describe, expect, it } from 'vitest';
import { RpcError } from '../../src/client/rpc-error.js';
import { describeRpcError } from '../../src/client/commands/rpc-error-advice.js';
import { formatWebhook } from '../../src/client/commands/webhooks.command.js';
import { WebhookViewSchema, type WebhookView } from '../../src/protocol/webhooks.schema.js';
import { startGatewayHarness, type GatewayHarness } from '../gateway/gateway.fixture.js';
import { runCli } from './cli-run.fixture.js';

async function withGateway<T>(
  options: Parameters<typeof startGatewayHarness>[0],
  body: (h: GatewayHarness) => Promise<T>,
): Promise<T> {
  const h = await startGatewayHarness(options);
  try {
    return await body(h);
  } finally {
    await h.close();
  }
}

describe('a server error in a friendly subcommand', () => {
  it('is one line, vigil: MESSAGE WHAT-TO-DO; --json prints the JSON-RPC error object instead', () =>
    withGateway({}, async (h) => {
      const human = await runCli(h, ['webhooks', 'deliveries', 'nope']);
      expect(human.code).toBe(1);
      expect(human.stderr).toBe(
        'vigil: No webhook endpoint has the id "nope". `vigil webhooks list` shows what there is.\n',
      );
      const json = await runCli(h, ['webhooks', 'deliveries', 'nope', '--json']);
      expect(json.code).toBe(1);
      expect(JSON.parse(json.stderr)).toMatchObject({ code: -32004, data: { vigilCode: 'WEBHOOK_NOT_FOUND' } });
      for (const argv of [
        ['tasks', 'cancel', 'task-nope'],
        ['schedules', 'remove', 'sch-nope'],
        ['tokens', 'revoke', 'nobody'],
      ]) {
        const { code, stderr } = await runCli(h, argv);
        expect(code, argv.join(' ')).toBe(1);
        expect(stderr, argv.join(' ')).toMatch(
          new RegExp(`^vigil: [^{\\n]+ \`vigil ${argv[0]} list\` shows what there is\\.\\n$`),
        );
      }
    }));

  it('checkpoints (whose answers are JSON) keep the object, then the line', () =>
    withGateway({}, async (h) => {
      const { code, stderr } = await runCli(h, ['checkpoints', 'show', 'cp-nope']);
      expect(code).toBe(1);
      const [json, line] = stderr.trimEnd().split('\n');
      expect(JSON.parse(json!)).toMatchObject({ code: -32004 });
      expect(line).toMatch(/^vigil: .*`vigil checkpoints list` shows what there is\.$/);
    }));
});

describe('describeRpcError', () => {
  const error = (code: number, message: string, data?: unknown, method = 'webhooks.add') =>
    new RpcError(data === undefined ? { code, message } : { code, message, data }, method);

  it('names an unknown method, the nearest ones, and rpc.discover', () => {
    expect(describeRpcError(error(-32601, 'Method not found', undefined, 'no.such.method'), 'rpc')).toBe(
      'no method "no.such.method". `vigil rpc rpc.discover` lists every method.',
    );
    const near = error(-32601, 'Method not found', { suggestions: ['agent.send'] }, 'agent.sned');
    expect(describeRpcError(near, 'rpc')).toBe(
      'no method "agent.sned"; did you mean "agent.send"? `vigil rpc rpc.discover` lists every method.',
    );
    // From a friendly command it means the daemon is another version.
    expect(describeRpcError(error(-32601, 'Method not found', undefined, 'webhooks.list'), 'webhooks')).toMatch(
      /^no method "webhooks\.list"\. This daemon does not know webhooks\.list: is it older than this vigil\?/,
    );
  });

  it('says what to do for each kind of error', () => {
    expect(describeRpcError(error(-32602, 'Invalid params for webhooks.add: url: Invalid url.'), 'webhooks')).toBe(
      'Invalid params for webhooks.add: url: Invalid url. See `vigil webhooks --help`.',
    );
    expect(describeRpcError(error(-32003, 'Forbidden', { scope: 'operate' }), 'webhooks')).toBe(
      "this token may not call webhooks.add: it needs a token of scope operate. Use a token of scope operate (--token), or the daemon's own token file (--data-dir).",
    );
    expect(describeRpcError(error(-32009, 'Too many endpoints', { vigilCode: 'WEBHOOK_LIMIT' }), 'webhooks')).toBe(
      'Too many endpoints. Remove one first.',
    );
    expect(describeRpcError(error(-32603, 'Internal error'), 'webhooks')).toMatch(
      /^Internal error\. The daemon failed inside: its log/,
    );
    expect(describeRpcError(error(-32010, 'The task has finished'), 'tasks')).toBe('The task has finished.');
  });
});

describe('vigil webhooks list', () => {
  it('says why the last attempt failed when no HTTP status came back (refused), and the status when one did', () => {
    let answer: () => Promise<{ status: number }> = () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:9'));
    return withGateway({ runtime: { webhooks: { post: () => answer() } } }, async (h) => {
      const raw = await h.connect();
      const added = (await raw.request('webhooks.add', { url: 'http://example.test/hook', types: ['agent.reply'] }))
        .result as { id: string };
      await h.until(raw.request('agent.send', { text: 'hello' }));
      await h.advance(2000);
      const [view] = WebhookViewSchema.array().parse((await raw.request('webhooks.list')).result);
      expect(view).toMatchObject({ id: added.id, state: 'failing', lastStatus: null, lastReason: 'refused' });
      const listed = await runCli(h, ['webhooks', 'list']);
      expect(listed.stdout).toMatch(new RegExp(`^${added.id}\\t.*\\tfailing\\t.*\\tlast \\S+ \\(refused\\)\\n$`));

      // The receiver comes back with a 503: the status, not a class, is what the line shows.
      answer = () => Promise.resolve({ status: 503 });
      await h.advance(120_000);
      const again = await runCli(h, ['webhooks', 'list']);
      expect(again.stdout).toMatch(/\tlast \S+ \(503\)\n$/);
    });
  });

  it('formats each outcome: never tried, delivered, no answer with a reason', () => {
    const base: WebhookView = {
      id: 'wh_1',
      name: 'ci',
      url: 'http://example.test/hook',
      types: ['agent.reply'],
      state: 'ok',
      deliveredSeq: 0,
      backlog: 0,
      lastAttemptAt: null,
      lastStatus: null,
      lastReason: null,
    };
    expect(formatWebhook(base)).toMatch(/\tlast never$/);
    const at = '2026-12-07T10:00:00.000Z';
    expect(formatWebhook({ ...base, lastAttemptAt: at, lastStatus: 204 })).toMatch(
      /\tlast 2026-12-07T10:00:00.000Z \(204\)$/,
    );
    expect(formatWebhook({ ...base, state: 'failing', lastAttemptAt: at, lastReason: 'timeout' })).toMatch(
      /\tfailing\t.*\tlast 2026-12-07T10:00:00.000Z \(timeout\)$/,
    );
  });
});
