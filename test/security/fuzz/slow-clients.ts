import { connect, type Socket } from 'node:net';

/** How a slow client's connection ended. */
export interface SlowEnd {
  /** Milliseconds from connecting until the server closed the connection; -1 if it never did. */
  closedAfterMs: number;
  /** The first line of what the server answered ('' for nothing). */
  answer: string;
  /** Which kind of client it was, for a failure's message. */
  kind: 'slow headers' | 'slow body' | 'idle';
}

/**
 * A slow-loris client: connects and sends a request's headers one short line every `dripMs`,
 * never finishing them (or, with `body`, finishes the headers and then drips the body). Resolves
 * when the server closes the connection, or after `giveUpMs`.
 */
export function slowClient(host: string, port: number, dripMs: number, giveUpMs: number, body = false, token = ''): Promise<SlowEnd> {
  return new Promise((resolve) => {
    const started = Date.now();
    let answer = '';
    let finished = false;
    const socket: Socket = connect(port, host);
    const finish = (closed: boolean) => {
      if (finished) return;
      finished = true;
      clearInterval(drip);
      clearTimeout(giveUp);
      socket.destroy();
      resolve({
        closedAfterMs: closed ? Date.now() - started : -1,
        answer: answer.split('\r\n')[0] ?? '',
        kind: body ? 'slow body' : 'slow headers',
      });
    };
    socket.on('data', (d) => {
      answer += d.toString('latin1');
    });
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
    socket.write(
      body
        ? `POST /stop-job HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`
        : 'GET /overview HTTP/1.1\r\nHost: x\r\n',
    );
    let n = 0;
    const drip = setInterval(() => {
      if (!socket.destroyed) socket.write(body ? ' ' : `X-Slow-${n++}: a\r\n`);
    }, dripMs);
    const giveUp = setTimeout(() => finish(false), giveUpMs);
  });
}

/** Opens a connection and sends nothing; resolves how long until the server closed it. */
export function idleClient(host: string, port: number, giveUpMs: number): Promise<SlowEnd> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(port, host);
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ closedAfterMs: closed ? Date.now() - started : -1, answer: '', kind: 'idle' });
    };
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
    const giveUp = setTimeout(() => finish(false), giveUpMs);
  });
}
