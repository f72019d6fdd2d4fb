/**
 * IMAP and SMTP failures as the channel core needs them, and where each server is. No message carries a password:
 * imapflow and nodemailer never put one in an error, and the URLs hold no credentials (the account comes from the
 * environment).
 */
import { ChannelCallError } from '../channel-adapter.js';

/** A server's address, from an `imap(s)://` or `smtp(s)://` URL. */
export interface MailEndpoint {
  host: string;
  port: number;
  /** TLS from the first byte (`imaps`, `smtps`); otherwise STARTTLS when the server offers it. */
  secure: boolean;
}

const DEFAULT_PORTS: Record<string, number> = { imap: 143, imaps: 993, smtp: 587, smtps: 465 };

/** Where `url` points. */
export function mailEndpoint(url: string): MailEndpoint {
  const parsed = new URL(url);
  const scheme = parsed.protocol.replace(/:$/, '');
  const port = parsed.port === '' ? DEFAULT_PORTS[scheme] : Number(parsed.port);
  return { host: parsed.hostname, port: port ?? 0, secure: scheme.endsWith('s') };
}

interface MailError {
  message?: string;
  code?: string;
  responseCode?: number;
  authenticationFailed?: boolean;
  serverResponseCode?: string;
}

/** An IMAP call's failure. */
export function imapFailure(err: unknown): ChannelCallError {
  if (err instanceof ChannelCallError) return err;
  const error = (err ?? {}) as MailError;
  const message = `IMAP: ${error.message ?? String(err)}${error.serverResponseCode === undefined ? '' : ` (${error.serverResponseCode})`}`;
  if (error.authenticationFailed === true || error.serverResponseCode === 'AUTHENTICATIONFAILED') {
    return new ChannelCallError('unauthorized', message);
  }
  return new ChannelCallError('unreachable', message);
}

/**
 * An SMTP send's failure, and whether the server answered it (a refusal: the mail was not taken, for sure) or the
 * outcome is unknown (the connection broke with the mail perhaps handed over).
 */
export function smtpFailure(err: unknown): { failure: ChannelCallError; answered: boolean } {
  const error = (err ?? {}) as MailError;
  const message = `SMTP: ${error.message ?? String(err)}`;
  if (error.code === 'EAUTH') return { failure: new ChannelCallError('unauthorized', message), answered: true };
  if (typeof error.responseCode === 'number') {
    const kind = error.responseCode >= 500 ? 'refused' : 'unreachable';
    return { failure: new ChannelCallError(kind, message), answered: true };
  }
  // Anything else may have broken after the mail was handed over: unknown (a refused connection cannot have).
  const answered = /ECONNREFUSED|ENOTFOUND/.test(message);
  return { failure: new ChannelCallError('unreachable', message), answered };
}
