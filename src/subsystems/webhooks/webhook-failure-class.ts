/**
 * A failed attempt's reason as a class (`refused`, `timeout`, `dns`, `tls`, `http_4xx`, …): what `webhook.failing`
 * carries into the journal that read-scope tokens see; the full error stays in `webhooks.deliveries` (operate).
 */

/** The reason classes, for the docs and tests. */
export const FAILURE_CLASSES = [
  'private_address',
  'refused',
  'timeout',
  'dns',
  'tls',
  'reset',
  'http_3xx',
  'http_4xx',
  'http_5xx',
  'http_other',
  'network',
] as const;
export type FailureClass = (typeof FAILURE_CLASSES)[number];

const BY_TEXT: readonly (readonly [RegExp, FailureClass])[] = [
  [/EPRIVATEADDRESS|private address|gateway's own address/, 'private_address'],
  [/ECONNREFUSED/, 'refused'],
  [/no answer within|ETIMEDOUT|timed? ?out|abort/i, 'timeout'],
  [/ENOTFOUND|EAI_AGAIN|EAI_FAIL|ENODATA|has no address/, 'dns'],
  [/CERT|TLS|SSL|self[- ]signed|handshake/i, 'tls'],
  [/ECONNRESET|EPIPE|socket hang up/, 'reset'],
];

/** The class of a failed attempt: by its HTTP status when one came back, else by the error's code or sentence. */
export function failureClass(error: string, status?: number): FailureClass {
  if (status !== undefined && status > 0) {
    if (status >= 300 && status < 400) return 'http_3xx';
    if (status >= 400 && status < 500) return 'http_4xx';
    if (status >= 500 && status < 600) return 'http_5xx';
    return 'http_other';
  }
  return BY_TEXT.find(([pattern]) => pattern.test(error))?.[1] ?? 'network';
}
