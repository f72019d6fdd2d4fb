/**
 * Whether the gateway can listen where it is told, asked before the daemon touches its data dir: a port in use ends
 * the start at once with a message suggesting --port, rather than after the store was opened and restored.
 */
import { createServer } from 'node:net';
import { VigilError, describeError } from '../errors.js';

/** The error for a failed listen on `host:port`: a taken port, a port or host this user cannot use, or as it came. */
export function listenError(err: unknown, host: string, port: number): VigilError {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') {
    return new VigilError(
      'GATEWAY_PORT_IN_USE',
      `Port ${port} on ${host} is already in use (by another Vigil daemon or another program). ` +
        `Pass --port with a free port, or --port 0 for any free one (clients find it through the data dir's daemon.json).`,
      { cause: err, data: { host, port } },
    );
  }
  if (code === 'EACCES') {
    const allowed =
      'expected a port this user may listen on (below 1024 needs privileges): pass --port 1024 or above, or 0';
    return new VigilError('CONFIG_INVALID', `VIGIL_PORT=${JSON.stringify(String(port))} is invalid: ${allowed}.`, {
      cause: err,
      data: {
        variable: 'VIGIL_PORT',
        value: String(port),
        allowed,
        problems: [{ variable: 'VIGIL_PORT', value: String(port), allowed }],
      },
    });
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    const allowed = `expected an address of this machine (${code}): pass --host 127.0.0.1, or an address of one of its interfaces`;
    return new VigilError('CONFIG_INVALID', `VIGIL_HOST=${JSON.stringify(host)} is invalid: ${allowed}.`, {
      cause: err,
      data: {
        variable: 'VIGIL_HOST',
        value: host,
        allowed,
        problems: [{ variable: 'VIGIL_HOST', value: host, allowed }],
      },
    });
  }
  return new VigilError('INTERNAL', `The gateway cannot listen on ${host}:${port}: ${describeError(err)}.`, {
    cause: err,
  });
}

/** Listens on `host:port` for a moment and lets go; throws `listenError`'s error when it cannot. Port 0 always can. */
export async function assertCanListen(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (err) => reject(listenError(err, host, port)));
    probe.listen({ host, port, exclusive: true }, () => resolve());
  });
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}
