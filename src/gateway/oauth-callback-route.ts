/**
 * `GET /oauth/callback` (CONTRACT §15): where an authorization server sends the operator's browser back after a
 * sign-in to a remote MCP server. It needs no gateway token: the `state` is the credential (single use, bound to one
 * sign-in and its PKCE verifier, 10 minutes). It answers a small page saying what happened; nothing of the request is
 * echoed but the server's configured name, escaped.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CallbackOutcome } from '../protocol/tools.schema.js';
import { describeError } from '../errors.js';
import type { VigilLogger } from '../shared/logger.js';

/** What the route needs of the runtime. */
export interface SignInCompleter {
  completeSignIn(answer: { state: string; code?: string; error?: string }): Promise<CallbackOutcome>;
}

// Longer values are no OAuth parameter a real authorization server sends: refused without a look-up.
const MAX_PARAM_LENGTH = 4096;

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** `text` safe inside HTML text and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

/** The page: a title and one paragraph, no script, nothing loaded from anywhere. */
export function callbackPage(title: string, message: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Vigil: ${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#222}</style>
</head><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></body></html>
`;
}

function send(res: ServerResponse, status: number, title: string, message: string): void {
  const body = callbackPage(title, message);
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
  });
  res.end(body);
}

/** One query parameter, or undefined when absent, repeated or too long. */
function single(url: URL, name: string): string | undefined {
  const values = url.searchParams.getAll(name);
  return values.length === 1 && values[0]!.length <= MAX_PARAM_LENGTH ? values[0] : undefined;
}

/** Handles the callback: GET or HEAD only; the answer waits for the code's exchange. */
export function handleOAuthCallback(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  runtime: SignInCompleter,
  log: VigilLogger,
): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD');
    send(res, 405, 'Not allowed', 'This address only takes the browser coming back from a sign-in.');
    return;
  }
  const state = single(url, 'state');
  const code = single(url, 'code');
  const error = single(url, 'error');
  if (state === undefined || (code === undefined) === (error === undefined)) {
    send(
      res,
      400,
      'Sign-in not completed',
      'This link is not a complete sign-in answer (it needs one state and either a code or an error). Start again with vigil tools login SERVER.',
    );
    return;
  }
  runtime
    .completeSignIn({ state, ...(code === undefined ? {} : { code }), ...(error === undefined ? {} : { error }) })
    .then(
      (outcome) => {
        switch (outcome.kind) {
          case 'signed_in':
            send(
              res,
              200,
              `Signed in to ${outcome.server}`,
              `Vigil is signed in to the MCP server ${outcome.server} and connects to it now. You can close this page.`,
            );
            return;
          case 'failed':
            send(
              res,
              400,
              `Sign-in to ${outcome.server} failed`,
              `The sign-in to the MCP server ${outcome.server} failed: ${outcome.error}. Start again with vigil tools login ${outcome.server}.`,
            );
            return;
          case 'unknown_state':
            send(
              res,
              400,
              'Sign-in link unknown or expired',
              'This sign-in is not known to Vigil: it was used already, is older than 10 minutes, or was never made here. Nothing was changed. Start again with vigil tools login SERVER.',
            );
            return;
        }
      },
      (err: unknown) => {
        log.error({ err: describeError(err) }, 'finishing an OAuth sign-in failed');
        send(res, 500, 'Sign-in not completed', 'Vigil could not finish the sign-in. See its log.');
      },
    );
}
