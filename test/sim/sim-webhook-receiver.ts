/**
 * The simulated webhook receivers: the outbox's injected post function, one per runtime incarnation, answering in
 * simulated time. A receiver answers 2xx most of the time, and on the seeded random a 5xx, or never (the outbox's
 * timeout ends the attempt); the world also takes one down for a while (connection refused) and has one answer 410
 * until it is enabled again. Every request is recorded at its arrival with its webhook-id and body, and marked
 * answered only when its answer reached a live runtime: only such a 2xx counts as delivered.
 */
import { createHash } from 'node:crypto';
import type { SimWorldClock } from './sim-clock.js';
import type { SimRandom } from './sim-random.js';

/** One POST as a receiver saw it. */
export interface SimWebhookRequest {
  /** Simulated epoch ms of its arrival, and of its answer (null while none reached the runtime). */
  at: number;
  answeredAt: number | null;
  incarnation: number;
  url: string;
  webhookId: string;
  /** The event's seq and type, read from the body. */
  seq: number;
  type: string;
  /** sha256 of the body, hex: two bodies under one webhook-id show as two digests. */
  bodyDigest: string;
  /** The status the receiver answered (or was going to), null for a refused connection or a hang. */
  status: number | null;
}

/** What the outbox hands its post function: the request, and a signal that ends it (its timeout, or a stop). */
export interface SimPostRequest {
  url: string;
  headers: Readonly<Record<string, string>>;
  body: string;
  signal?: AbortSignal;
}

/** What the post function resolves with. */
export interface SimPostResponse {
  status: number;
}

/** How a receiver answers while the world is hostile (per request, on the seeded random). */
const HOSTILE = { ok: 86, serverError: 8, hang: 3, slowOk: 3 } as const;

/** Refused, as a dead port refuses. */
export class SimConnectionRefused extends Error {
  readonly code = 'ECONNREFUSED';
  constructor(url: string) {
    super(`connect ECONNREFUSED (${url})`);
  }
}

/** Every receiver of the world, by URL. */
export class SimWebhookReceiver {
  readonly requests: SimWebhookRequest[] = [];
  private readonly downUntil = new Map<string, number>();
  private readonly gone = new Set<string>();
  private readonly cutIncarnations = new Set<number>();
  private calm = false;

  constructor(
    private readonly world: SimWorldClock,
    private readonly rng: SimRandom,
  ) {}

  /** From now on every receiver answers 2xx, promptly: the drain, in which every backlog must empty. */
  quiet(): void {
    this.calm = true;
    this.downUntil.clear();
    this.gone.clear();
  }

  /** `url` refuses connections for `ms` of simulated time. */
  takeDown(url: string, ms: number): void {
    if (!this.calm) this.downUntil.set(url, this.world.now() + ms);
  }

  /** `url` answers 410 Gone until `comeBack(url)`. */
  goAway(url: string): void {
    if (!this.calm) this.gone.add(url);
  }

  /** `url` is up again and answers as it usually does (no longer down, no longer gone). */
  comeBack(url: string): void {
    this.gone.delete(url);
    this.downUntil.delete(url);
  }

  /** Incarnation `incarnation` died: no answer reaches it any more. */
  cut(incarnation: number): void {
    this.cutIncarnations.add(incarnation);
  }

  /** The outbox's post function for incarnation `incarnation`. */
  postFor(incarnation: number): (request: SimPostRequest) => Promise<SimPostResponse> {
    return (request) => this.receive(incarnation, request);
  }

  private receive(incarnation: number, request: SimPostRequest): Promise<SimPostResponse> {
    const { url } = request;
    const now = this.world.now();
    const down = (this.downUntil.get(url) ?? 0) > now;
    const outcome = this.calm ? 'ok' : this.gone.has(url) ? 'gone' : this.rng.weighted(HOSTILE);
    const status = down
      ? null
      : outcome === 'gone'
        ? 410
        : outcome === 'serverError'
          ? 503
          : outcome === 'hang'
            ? null
            : 200;
    const parsed = JSON.parse(request.body) as { seq?: unknown; type?: unknown };
    const record: SimWebhookRequest = {
      at: now,
      answeredAt: null,
      incarnation,
      url,
      webhookId: request.headers['webhook-id'] ?? '',
      seq: typeof parsed.seq === 'number' ? parsed.seq : -1,
      type: typeof parsed.type === 'string' ? parsed.type : '?',
      bodyDigest: createHash('sha256').update(request.body).digest('hex'),
      status,
    };
    this.requests.push(record);
    const latency = down
      ? this.rng.int(1, 20)
      : outcome === 'slowOk'
        ? this.rng.int(2_000, 30_000)
        : this.rng.int(5, 800);
    return new Promise((resolve, reject) => {
      const timer =
        outcome === 'hang' && !down
          ? undefined
          : this.world.setTimeout(() => {
              request.signal?.removeEventListener('abort', onAbort);
              // A dead process reads nothing: the promise stays pending as its whole heap is gone.
              if (this.cutIncarnations.has(incarnation)) return;
              if (status === null) {
                reject(new SimConnectionRefused(url));
                return;
              }
              record.answeredAt = this.world.now();
              resolve({ status });
            }, latency);
      const onAbort = () => {
        if (timer !== undefined) this.world.clearTimeout(timer);
        reject(request.signal?.reason instanceof Error ? request.signal.reason : new Error('aborted'));
      };
      if (request.signal?.aborted === true) onAbort();
      else request.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
