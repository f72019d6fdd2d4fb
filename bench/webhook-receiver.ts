/**
 * Local HTTP receivers for the webhooks bench: one that verifies every signature with the `standardwebhooks` package
 * and answers 204 at once, one that answers only after a delay (the "10-second endpoint", in a process of its own),
 * and a port nothing listens on (the dead endpoint: connection refused).
 */
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';

/** A receiver on 127.0.0.1 and what it took. */
export interface BenchReceiver {
  url: string;
  /** Requests whose signature verified (answered 2xx), and those whose did not (answered 400). */
  verified: number;
  rejected: number;
  /** Seqs of the verified events, in arrival order. */
  seqs: number[];
  /** Resolves once `count` verified requests have arrived. */
  waitFor(count: number): Promise<void>;
  /** Set once `webhooks.add` answered with the secret. */
  useSecret(secret: string): void;
  close(): Promise<void>;
}

/** Everything `server` holds open, so a close never waits on a keep-alive connection or a held answer. */
function closeHard(server: Server, sockets: Set<Socket>): Promise<void> {
  for (const socket of sockets) socket.destroy();
  return new Promise((resolve) => server.close(() => resolve()));
}

async function listen(
  handler: (req: IncomingMessage, res: ServerResponse, body: string) => void,
): Promise<{ server: Server; sockets: Set<Socket>; url: string }> {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handler(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, sockets, url: `http://127.0.0.1:${port}/hook` };
}

/** A healthy receiver: verifies each request's signature (`Webhook.verify`) and answers 204, or 400 if it fails. */
export async function startVerifyingReceiver(): Promise<BenchReceiver> {
  let webhook: Webhook | null = null;
  const waiters: { count: number; resolve: () => void }[] = [];
  const receiver: BenchReceiver = {
    url: '',
    verified: 0,
    rejected: 0,
    seqs: [],
    waitFor: (count) =>
      receiver.verified >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve })),
    useSecret: (secret) => (webhook = new Webhook(secret)),
    close: () => Promise.resolve(),
  };
  const { server, sockets, url } = await listen((req, res, body) => {
    try {
      if (webhook === null) throw new Error('no secret yet');
      const event = webhook.verify(body, req.headers as Record<string, string>) as { seq: number };
      receiver.verified += 1;
      receiver.seqs.push(event.seq);
      res.statusCode = 204;
    } catch {
      receiver.rejected += 1;
      res.statusCode = 400;
    }
    res.end();
    for (const waiter of waiters.filter((w) => receiver.verified >= w.count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  receiver.url = url;
  receiver.close = () => closeHard(server, sockets);
  return receiver;
}

/**
 * A receiver that answers 204 only after `delayMs` of real time, in a child process (`slow-receiver.mjs`): its work
 * (accepting, parsing, holding each request) is another machine's in a daemon's life, not the heartbeat process's.
 * `requests` counts what arrived.
 */
export async function startSlowReceiver(
  delayMs: number,
): Promise<{ url: string; requests: () => number; close(): Promise<void> }> {
  const child = spawn(
    process.execPath,
    [fileURLToPath(new URL('./slow-receiver.mjs', import.meta.url)), String(delayMs)],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = createInterface({ input: child.stdout });
  let requests = 0;
  const url = await new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the slow receiver exited (${code}) before it listened`)));
    lines.on('line', (line) => {
      if (line.startsWith('http://')) resolve(line);
      else requests += 1;
    });
  });
  return {
    url,
    requests: () => requests,
    close: async () => {
      child.stdin.end();
      await exited;
    },
  };
}

/** A URL on a port nothing listens on: a server is bound to take a free port, then closed. */
export async function deadUrl(): Promise<string> {
  const { server, sockets, url } = await listen((_req, res) => res.end());
  await closeHard(server, sockets);
  return url;
}
