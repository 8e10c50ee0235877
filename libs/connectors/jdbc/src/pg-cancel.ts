import { connect } from 'node:net';
import type pg from 'pg';

/** The CancelRequest code of PostgreSQL's protocol (1234 << 16 | 5678). */
const CANCEL_REQUEST_CODE = 80877102;

/**
 * Asks PostgreSQL to cancel what a session is running: a CancelRequest carrying the session's
 * process id and secret key, over a connection of its own (the session itself is busy). The
 * server answers by failing the running statement with SQLSTATE 57014. pg keeps the key on the
 * client but offers no typed way to send this.
 */
export function cancelRunningStatement(client: pg.Client, host: string, port: number): Promise<void> {
  const session = client as unknown as { processID: number | null; secretKey: number | null };
  if (session.processID === null || session.secretKey === null) return Promise.resolve();
  const packet = Buffer.alloc(16);
  packet.writeInt32BE(16, 0);
  packet.writeInt32BE(CANCEL_REQUEST_CODE, 4);
  packet.writeInt32BE(session.processID, 8);
  packet.writeInt32BE(session.secretKey, 12);
  return new Promise((resolve) => {
    const socket = host.startsWith('/') ? connect(`${host}/.s.PGSQL.${port}`) : connect(port, host);
    socket.on('connect', () => socket.end(packet));
    // The server closes the connection once it has read the request; failures leave the
    // statement running, which the caller then waits out.
    socket.on('close', () => resolve());
    socket.on('error', () => resolve());
  });
}
