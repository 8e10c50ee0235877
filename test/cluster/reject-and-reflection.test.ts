import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { GrpcReflection } from 'grpc-js-reflection-client';
import { casesDir } from './conformance-cases.js';
import { TestCluster, type ProcessName } from './test-cluster.js';

/**
 * A small cluster (one worker, 2 fixed slots) with job-schedule-strategy REJECT: jobs that
 * cannot get their slots fail at once with the numbers; and gRPC reflection plus the health
 * service on every process, checked with a reflection client as grpcurl would.
 */
let cluster: TestCluster;

beforeAll(async () => {
  // Started in the worst order: the worker first (it waits for the resource manager), the
  // resource manager last.
  cluster = await TestCluster.start({
    workers: [{ attributes: { group: 'platform' } }],
    slotNum: 2,
    jobScheduleStrategy: 'REJECT',
    startOrder: ['worker-1', 'coordinator', 'resource-manager'],
  });
});

afterAll(async () => {
  await cluster?.stop();
});

describe('start in any order', () => {
  it('a worker started before the resource manager says once that it waits, then registers', async () => {
    expect(cluster.logLines('worker-1', 'waiting for the resource manager')).toBe(1);
    expect(await cluster.metric('resource-manager', 'tideway_workers')).toBe(1);
  });
});

describe('REJECT at slot exhaustion', () => {
  it.skipIf(!casesDir)('slot_not_enough: parallelism 4 on 2 slots fails with how many slots it needs and how many exist', async () => {
    const res = await cluster.cli(['-c', `${casesDir}/connector-seatunnel-e2e-base__batch_slot_not_enough.conf`]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(/NoEnoughResource: job \d+ needs 4 slot\(s\), but 1 worker\(s\) have 2 slot\(s\) in all, 2 free/);
    expect((await cluster.cli(['list'])).stdout).toMatch(/\d+\s+SeaTunnel_Job\s+FAILED/);
  });

  it.skipIf(!casesDir)('tag_not_match: a tag_filter no worker matches fails and names the filter', async () => {
    const res = await cluster.cli([
      '-c',
      `${casesDir}/connector-seatunnel-e2e-base__resource-isolation_fakesource_to_console_tag_not_match.conf`,
    ]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('tag_filter {"group":"error_tag","team":"error_tag"} matches none of the 1 worker(s)');
    expect(await cluster.metric('resource-manager', 'tideway_slots_used')).toBe(0);
  });
});

describe('gRPC reflection and health', () => {
  const expected: Record<string, string[]> = {
    coordinator: ['tideway.v1.JobService', 'tideway.v1.CoordinatorService', 'tideway.v1.TokenService'],
    'resource-manager': ['tideway.v1.ResourceManagerService'],
    'worker-1': ['tideway.v1.WorkerService'],
  };

  for (const [name, services] of Object.entries(expected)) {
    it(`${name}: reflection lists its services and the health service answers SERVING`, async () => {
      const address = `127.0.0.1:${cluster.grpcPorts.get(name as ProcessName)}`;
      const reflection = new GrpcReflection(address, grpc.credentials.createInsecure());
      const listed = await reflection.listServices();
      for (const s of [...services, 'grpc.health.v1.Health']) expect(listed).toContain(s);
      for (const s of services) expect((await reflection.listMethods(s)).length).toBeGreaterThan(0);

      // The health service is called through the descriptor reflection hands out, as grpcurl does.
      const descriptor = await reflection.getDescriptorBySymbol('grpc.health.v1.Health');
      const pkg = descriptor.getPackageObject({ keepCase: true }) as unknown as {
        grpc: { health: { v1: { Health: grpc.ServiceClientConstructor } } };
      };
      const client = new pkg.grpc.health.v1.Health(address, grpc.credentials.createInsecure());
      try {
        for (const service of ['', ...services]) {
          const res = await new Promise<{ status: string | number }>((resolve, reject) =>
            (client as unknown as { Check(req: object, cb: (e: Error | null, r: { status: string | number }) => void): void }).Check(
              { service },
              (e, r) => (e ? reject(e) : resolve(r)),
            ),
          );
          expect([1, 'SERVING']).toContain(res.status);
        }
      } finally {
        client.close();
      }
    });
  }
});
