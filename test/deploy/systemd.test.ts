/**
 * The systemd deploy files, checked without systemd as PID 1 (it does not run here): the engine
 * configs beside the units load with Tideway's own loader, and the names that must agree across
 * files do (coordinator addresses, the Redis address and port, the configs the units read).
 * The Kubernetes side is the Helm chart: test/deploy/helm-chart.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadEngineConfig } from '@tideway/config';
import { repoRoot } from '../conformance/conformance-files.js';

const SYSTEMD = join(repoRoot, 'deploy', 'systemd');

describe('deploy/systemd', () => {
  const etc = join(SYSTEMD, 'etc');
  const load = (file: string) => loadEngineConfig({ file: join(etc, file) });

  it('three coordinator configs against one Redis, each advertising a different listed address', () => {
    const coordinators = [1, 2, 3].map((n) => load(`coordinator-${n}.yaml`));
    const listed = coordinators[0].tideway.coordinator.addresses;
    expect(listed).toHaveLength(3);
    expect(coordinators.map((c) => c.tideway.coordinator.advertisedAddress)).toEqual(listed);
    for (const c of coordinators) {
      expect(c.tideway.coordinator.addresses).toEqual(listed);
      expect(c.tideway.stateStore).toMatchObject({ type: 'redis', redis: { address: coordinators[0].tideway.stateStore.redis.address } });
    }
    for (const role of ['resource-manager.yaml', 'worker.yaml']) expect(load(role).tideway.coordinator.addresses, role).toEqual(listed);
    const port = /^port (\d+)$/m.exec(readFileSync(join(etc, 'redis.conf'), 'utf8'))![1];
    expect(coordinators[0].tideway.stateStore.redis.address).toMatch(new RegExp(`:${port}$`));
  });

  it('the Redis config keeps an append-only file; the template unit reads the per-instance config', () => {
    const conf = readFileSync(join(etc, 'redis.conf'), 'utf8');
    expect(conf).toMatch(/^appendonly yes$/m);
    expect(conf).toMatch(/^appendfsync everysec$/m);
    const unit = readFileSync(join(SYSTEMD, 'tideway-coordinator@.service'), 'utf8');
    expect(unit).toMatch(/^ExecStart=.* --role coordinator --engine-config \/etc\/tideway\/coordinator-%i\.yaml /m);
    expect(readFileSync(join(SYSTEMD, 'tideway-redis.service'), 'utf8')).toMatch(
      /^ExecStart=\/usr\/bin\/redis-server \/etc\/tideway\/redis\.conf /m,
    );
  });
});
