import { readFileSync } from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import { DESCRIPTOR_SET_PATH } from '@tideway/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import { TidewayServer } from './server.js';
import { DescriptorIndex } from './reflection/descriptor-index.js';
import { addReflection } from './reflection/reflection-service.js';

const HealthClient = grpc.makeGenericClientConstructor(healthService, 'Health');

interface HealthStub extends grpc.Client {
  check(req: { service: string }, cb: (err: grpc.ServiceError | null, res?: { status: string }) => void): void;
  watch(req: { service: string }): grpc.ClientReadableStream<{ status: string }>;
}

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function healthOf(server: TidewayServer): Promise<HealthStub> {
  const port = await server.listen('127.0.0.1', 0);
  closers.push(() => server.close(0));
  const client = new HealthClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as HealthStub;
  closers.push(() => client.close());
  return client;
}

const check = (client: HealthStub, service: string) =>
  new Promise<string>((resolve, reject) => client.check({ service }, (err, res) => (err ? reject(err) : resolve(res!.status))));

describe('services built on their first call', () => {
  it('health answers the statuses set before and after its first call, Check and Watch alike', async () => {
    const server = new TidewayServer();
    const client = await healthOf(server);
    server.setNotServing(); // before the health service was ever called
    expect(await check(client, '')).toBe('NOT_SERVING');
    const watch = client.watch({ service: 'tideway.v1.Nothing' });
    watch.on('error', () => undefined); // the cancel at the end
    closers.push(() => watch.cancel());
    const first = await new Promise<{ status: string }>((resolve) => watch.once('data', resolve));
    expect(first.status).toBe('SERVICE_UNKNOWN');
    await expect(check(client, 'tideway.v1.Nothing')).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
  });

  it('reflection that cannot describe a listed service fails its first call with INTERNAL, naming the service', async () => {
    const server = new grpc.Server();
    addReflection(server, () => new DescriptorIndex(readFileSync(DESCRIPTOR_SET_PATH)), ['tideway.v1.NoSuchService']);
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
    );
    closers.push(() => void server.forceShutdown());
    const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    closers.push(() => client.close());
    const call = client.makeBidiStreamRequest(
      '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo',
      (b: Buffer) => b,
      (b: Buffer) => b,
    );
    const status = await new Promise<grpc.StatusObject>((resolve) => {
      call.on('status', resolve);
      call.on('error', () => undefined);
      call.on('data', () => undefined);
      call.write(Buffer.from([0x3a, 0x00])); // list_services = ""
      call.end();
    });
    expect(status.code).toBe(grpc.status.INTERNAL);
    expect(status.details).toContain('no descriptor for tideway.v1.NoSuchService');
  });
});
