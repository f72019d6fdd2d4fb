/**
 * A child process for the hostile-heartbeat test: throws every kind of hostile traffic at the gateway on `argv[2]`
 * (token `argv[3]`) at once, from outside the daemon's event loop, and prints what it saw as one JSON line.
 */
import WebSocket from 'ws';
import { tryUpgrade } from './ws-upgrade.js';

const [base, token] = process.argv.slice(2) as [string, string];
const rpcUrl = `${base.replace('http', 'ws')}/rpc`;
const auth = { authorization: `Bearer ${token}` };
const MIB = 1024 * 1024;

function open(headers: Record<string, string> = auth): Promise<WebSocket> {
  const ws = new WebSocket(rpcUrl, { headers });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

function closed(ws: WebSocket): Promise<number> {
  return new Promise((resolve) => ws.once('close', (code) => resolve(code)));
}

/** 1,000 connections in batches of 50: half subscribe first; dropped by terminate, close, or a reset socket. */
async function churn(): Promise<number> {
  let dropped = 0;
  for (let start = 0; start < 1000; start += 50) {
    const batch = await Promise.all(Array.from({ length: 50 }, () => open()));
    await Promise.all(
      batch.map((ws, i) =>
        i % 2 === 0
          ? new Promise<void>((resolve) => {
              ws.once('message', () => resolve());
              ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'events.subscribe', params: { after: 0 }, id: 1 }));
            })
          : undefined,
      ),
    );
    for (const [i, ws] of batch.entries()) {
      if (i % 3 === 0) ws.terminate();
      else if (i % 3 === 1) ws.close();
      else (ws as unknown as { _socket: { destroy(): void } })._socket.destroy();
      dropped += 1;
    }
  }
  return dropped;
}

/**
 * 300 upgrades with wrong, missing or malformed tokens, from an address of their own (127.0.0.2): a guesser's address
 * is throttled (429) after 20 wrong tokens, and the rest of this traffic, from 127.0.0.1, must not be. How many were
 * refused (401 or 429).
 */
async function badTokens(): Promise<number> {
  let refused = 0;
  for (let start = 0; start < 300; start += 50) {
    const statuses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => {
        const headers: Record<string, string> =
          i % 3 === 0
            ? {}
            : i % 3 === 1
              ? { authorization: `Bearer ${token}x` }
              : { authorization: `Bearer ${'g'.repeat(i * 10)}` };
        return tryUpgrade(rpcUrl, headers, '127.0.0.2');
      }),
    );
    refused += statuses.filter((status) => status === 401 || status === 429).length;
  }
  return refused;
}

/** 3,000 requests back to back on one connection: how many were served and how many refused with -32029. */
async function flood(): Promise<{ served: number; rateLimited: number }> {
  const ws = await open();
  let served = 0;
  let rateLimited = 0;
  const done = new Promise<void>((resolve) => {
    ws.on('message', (data) => {
      const frame = JSON.parse((data as Buffer).toString()) as { result?: unknown; error?: { code: number } };
      if (frame.error?.code === -32029) rateLimited += 1;
      else if (frame.result !== undefined) served += 1;
      if (served + rateLimited === 3000) resolve();
    });
  });
  for (let i = 0; i < 3000; i += 1) ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'heartbeat.status', id: i }));
  await done;
  ws.close();
  return { served, rateLimited };
}

/** A client that never reads, asking for large answers; it stays deaf until `rest` (all the other traffic) is done. */
async function deaf(rest: Promise<unknown>): Promise<void> {
  const ws = await open();
  ws.pause();
  for (let i = 0; i < 400; i += 1) ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'rpc.discover', id: i }));
  try {
    await rest;
  } finally {
    ws.terminate();
  }
}

/** 10 frames over 1 MiB, one per connection: the close code each got. */
async function oversized(): Promise<number[]> {
  return Promise.all(
    Array.from({ length: 10 }, async () => {
      const ws = await open();
      const code = closed(ws);
      ws.send(`"${'x'.repeat(MIB)}"`);
      return code;
    }),
  );
}

/** 10 deeply nested frames just under 1 MiB: the error code of each answer. */
async function nested(): Promise<number[]> {
  const ws = await open();
  const codes: number[] = [];
  for (let i = 0; i < 10; i += 1) {
    const depth = 400_000 + i;
    const answer = new Promise<number>((resolve) =>
      ws.once('message', (data) =>
        resolve((JSON.parse((data as Buffer).toString()) as { error: { code: number } }).error.code),
      ),
    );
    ws.send(i % 2 === 0 ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(150_000) + '1' + '}'.repeat(150_000));
    codes.push(await answer);
  }
  ws.close();
  return codes;
}

const started = Date.now();
const rest = Promise.all([churn(), badTokens(), flood(), oversized(), nested()]);
const [[dropped, refused, flooded, closeCodes, nestedCodes]] = await Promise.all([rest, deaf(rest)]);
process.stdout.write(
  `${JSON.stringify({ dropped, refused, ...flooded, closeCodes, nestedCodes, ms: Date.now() - started })}\n`,
);
process.exit(0);
