import * as grpc from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientPool } from './client-pool.js';

const same = (b: Buffer) => b;
const service: grpc.ServiceDefinition = {
  ping: {
    path: '/test.Pool/Ping',
    requestStream: false,
    responseStream: false,
    requestSerialize: same,
    requestDeserialize: same,
    responseSerialize: same,
    responseDeserialize: same,
  },
};
const Client = grpc.makeGenericClientConstructor(service, 'Pool');
type PingClient = grpc.Client & { ping: (req: Buffer, cb: (err: grpc.ServiceError | null, res?: Buffer) => void) => void };

let servers: grpc.Server[] = [];
afterEach(() => {
  for (const s of servers) s.forceShutdown();
  servers = [];
});

async function serve(port = 0): Promise<number> {
  const server = new grpc.Server();
  server.addService(service, { ping: (_call: unknown, cb: grpc.sendUnaryData<Buffer>) => cb(null, Buffer.from('pong')) });
  servers.push(server);
  return new Promise((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
}

const ping = (c: PingClient) =>
  new Promise<string>((resolve, reject) => c.ping(Buffer.from('x'), (err, res) => (err ? reject(err) : resolve(String(res)))));

describe('ClientPool', () => {
  it('replaces a client stuck in reconnect backoff, so a peer back on its address answers at once', async () => {
    const port = await serve();
    // gRPC's default backoff (1 s, growing to 2 min): the case the pool exists for.
    const pool = new ClientPool((a) => new Client(a, grpc.credentials.createInsecure()) as unknown as PingClient);
    const address = `127.0.0.1:${port}`;
    const held = pool.get(address);
    expect(await ping(held)).toBe('pong');
    expect(pool.get(address)).toBe(held);

    servers.pop()!.forceShutdown();
    await expect(ping(held)).rejects.toThrow(/UNAVAILABLE/);
    await serve(port);
    // The old channel still waits out its backoff: it fails without trying.
    await expect(ping(held)).rejects.toThrow(/No connection established/);
    const fresh = pool.get(address);
    expect(fresh).not.toBe(held);
    expect(await ping(fresh)).toBe('pong');
    pool.close();
  });

  it('tells of a connection that was up and went down, once per loss, and not of a closed pool', async () => {
    const port = await serve();
    const lost: string[] = [];
    const pool = new ClientPool(
      (a) => new Client(a, grpc.credentials.createInsecure()) as unknown as PingClient,
      (a) => lost.push(a),
    );
    const address = `127.0.0.1:${port}`;
    expect(await ping(pool.get(address))).toBe('pong');
    expect(lost).toEqual([]);

    servers.pop()!.forceShutdown();
    for (let i = 0; i < 100 && lost.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(lost).toEqual([address]);

    await serve(port);
    const again = pool.get(address);
    expect(await ping(again)).toBe('pong');
    pool.close();
    await new Promise((r) => setTimeout(r, 200));
    expect(lost).toEqual([address]);
  });
});
