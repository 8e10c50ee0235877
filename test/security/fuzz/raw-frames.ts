import { connect, constants } from 'node:http2';
import type { SeededRandom } from './seeded-random.js';

/** What a server answered to a hand-made gRPC stream. */
export interface FrameAnswer {
  what: string;
  /** HTTP status, 0 if none. */
  http: number;
  /** grpc-status from headers or trailers; -1 if none came. */
  grpcStatus: number;
  message: string;
}

/**
 * One gRPC stream written by hand over node:http2: a message frame cut short, a length prefix
 * past the size limit, a compressed flag without compression, a wrong content type, or a frame
 * left open (answered by the server's own deadline from grpc-timeout).
 */
export function rawFrameCase(
  rng: SeededRandom,
  path: string,
): { what: string; headers: Record<string, string>; body: Buffer; end: boolean } {
  const prefix = (flag: number, length: number) => {
    const b = Buffer.alloc(5);
    b.writeUInt8(flag, 0);
    b.writeUInt32BE(length >>> 0, 1);
    return b;
  };
  const base = { ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers', 'grpc-timeout': '3S' };
  const cases = [
    () => ({ what: 'a message cut short', headers: base, body: Buffer.concat([prefix(0, 100), rng.bytes(10)]), end: true }),
    () => ({ what: 'a length prefix cut short', headers: base, body: Buffer.from([0, 0, 0]), end: true }),
    () => ({ what: 'a length past the limit', headers: base, body: Buffer.concat([prefix(0, 0xffffffff), rng.bytes(20)]), end: true }),
    () => ({
      what: 'a compressed flag without grpc-encoding',
      headers: base,
      body: Buffer.concat([prefix(1, 4), rng.bytes(4)]),
      end: true,
    }),
    () => ({
      what: 'gzip that does not inflate',
      headers: { ...base, 'grpc-encoding': 'gzip' },
      body: Buffer.concat([prefix(1, 8), rng.bytes(8)]),
      end: true,
    }),
    () => ({
      what: 'an unknown grpc-encoding',
      headers: { ...base, 'grpc-encoding': 'zstd-x' },
      body: Buffer.concat([prefix(1, 2), rng.bytes(2)]),
      end: true,
    }),
    () => ({ what: 'two messages for a unary call', headers: base, body: Buffer.concat([prefix(0, 0), prefix(0, 0)]), end: true }),
    () => ({
      what: 'a frame left open',
      headers: { ...base, 'grpc-timeout': '1S' },
      body: Buffer.concat([prefix(0, 50), rng.bytes(5)]),
      end: false,
    }),
    () => ({ what: 'a wrong content type', headers: { ...base, 'content-type': 'text/plain' }, body: rng.bytes(10), end: true }),
    () => ({
      what: 'a bad grpc-timeout',
      headers: { ...base, 'grpc-timeout': rng.pick(['abc', '99999999999H', '-1S']) },
      body: prefix(0, 0),
      end: true,
    }),
  ];
  return rng.pick(cases)();
}

/** Sends one hand-made stream and waits for its answer (at most `waitMs`). */
export function sendRawFrame(
  address: string,
  c: { what: string; headers: Record<string, string>; body: Buffer; end: boolean },
  waitMs: number,
): Promise<FrameAnswer> {
  return new Promise((resolve) => {
    const session = connect(`http://${address}`);
    let http = 0;
    let grpcStatus = -1;
    let message = '';
    let settled = false;
    const done = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      session.destroy();
      resolve({ what: c.what, http, grpcStatus, message });
    };
    const timer = setTimeout(done, waitMs);
    session.on('error', (err) => {
      message ||= err.message;
      done();
    });
    const req = session.request(c.headers, { endStream: false });
    const take = (h: Record<string, unknown>) => {
      if (h[constants.HTTP2_HEADER_STATUS] !== undefined) http = Number(h[constants.HTTP2_HEADER_STATUS]);
      if (h['grpc-status'] !== undefined) grpcStatus = Number(h['grpc-status']);
      if (typeof h['grpc-message'] === 'string') message = decodeURIComponent(h['grpc-message']);
    };
    req.on('response', take);
    req.on('trailers', take);
    req.on('data', () => {});
    req.on('error', (err) => {
      message ||= err.message;
    });
    req.on('close', done);
    if (c.end) req.end(c.body);
    else req.write(c.body);
  });
}
