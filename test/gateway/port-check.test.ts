import { createServer, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { assertCanListen, listenError } from '../../src/gateway/port-check.js';

/** A server holding a port on 127.0.0.1, as another program would. */
async function holdPort(): Promise<{ server: Server; port: number }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { server, port: address.port };
}

describe('assertCanListen', () => {
  it('refuses a port in use with GATEWAY_PORT_IN_USE, suggesting --port', async () => {
    const { server, port } = await holdPort();
    try {
      const err = await assertCanListen('127.0.0.1', port).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'GATEWAY_PORT_IN_USE', data: { host: '127.0.0.1', port } });
      expect((err as Error).message).toMatch(/--port/);
    } finally {
      server.close();
    }
  });

  it('lets go of a free port, so the gateway can take it next', async () => {
    const { server, port } = await holdPort();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await assertCanListen('127.0.0.1', port);
    const again = createServer();
    await new Promise<void>((resolve) => again.listen(port, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => again.close(() => resolve()));
  });

  it('does not probe port 0 (any free port)', async () => {
    await expect(assertCanListen('127.0.0.1', 0)).resolves.toBeUndefined();
  });
});

describe('listenError', () => {
  const errno = (code: string) => Object.assign(new Error(code), { code });

  it('makes a privileged port and a host of another machine configuration errors naming their variable', () => {
    expect(listenError(errno('EACCES'), '127.0.0.1', 80)).toMatchObject({
      code: 'CONFIG_INVALID',
      data: { variable: 'VIGIL_PORT', value: '80' },
    });
    expect(listenError(errno('EADDRNOTAVAIL'), '10.9.8.7', 7420)).toMatchObject({
      code: 'CONFIG_INVALID',
      data: { variable: 'VIGIL_HOST', value: '10.9.8.7' },
    });
  });

  it('keeps anything else as an internal error with the reason', () => {
    expect(listenError(errno('EMFILE'), '127.0.0.1', 7420)).toMatchObject({
      code: 'INTERNAL',
      message: expect.stringMatching(/EMFILE/),
    });
  });
});
