import { connect, createServer } from 'node:net';

/**
 * A TCP port on 127.0.0.1 that nothing listens on right now. The kernel picks it from the
 * ephemeral range, so it never is one of the well-known ports (5432, 3306, 6379) where the
 * machine's own servers may run. Another process may take it before the caller binds it:
 * callers retry start-up on a new port when the server reports the address in use.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => (port > 0 ? resolve(port) : reject(new Error('the kernel gave no free port on 127.0.0.1'))));
    });
  });
}

/** Whether something accepts TCP connections on 127.0.0.1:`port` (e.g. a server that should be gone). */
export function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}
