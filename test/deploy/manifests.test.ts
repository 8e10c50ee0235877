/**
 * The deploy files, checked without a Kubernetes cluster or systemd (neither runs here): every
 * manifest document parses, the engine configs inside the ConfigMap and beside the systemd
 * units load with Tideway's own loader, and the names that must agree across files do (pod DNS
 * names in coordinator.addresses, the Redis address, placeholders and the variables that fill
 * them, config keys the containers read).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { loadEngineConfig, type EngineConfig } from '@tideway/config';
import { repoRoot } from '../conformance/conformance-files.js';

const K8S = join(repoRoot, 'deploy', 'kubernetes');
const SYSTEMD = join(repoRoot, 'deploy', 'systemd');

/** The parts of Kubernetes objects these checks read (a workload, Service, PVC or NetworkPolicy spec). */
interface Container {
  name: string;
  command?: string[];
  args?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: { name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[];
  volumeMounts?: { name: string; mountPath: string }[];
}
interface PodTemplate {
  metadata: { labels: Record<string, string> };
  spec: { containers: Container[]; volumes?: { name: string; persistentVolumeClaim?: { claimName: string } }[] };
}
interface Spec {
  selector?: { matchLabels: Record<string, string> };
  template?: PodTemplate;
  serviceName?: string;
  replicas?: number;
  volumeClaimTemplates?: { metadata: { name: string } }[];
  accessModes?: string[];
  clusterIP?: string;
}

/** A manifest document: the fields these checks read. */
interface Doc {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  spec?: Spec;
}

/** The entry of a list (ports, env, mounts, volumes) with that name; fails the test when there is none. */
function named<T extends { name?: string }>(items: readonly T[] | undefined, name: string): T {
  const item = items?.find((i) => i.name === name);
  if (!item) throw new Error(`no entry named ${name}`);
  return item;
}

function documents(): Array<Doc & { file: string }> {
  return readdirSync(K8S)
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((file) =>
      parseAllDocuments(readFileSync(join(K8S, file), 'utf8')).map((d) => {
        expect(d.errors.map((e) => `${file}: ${e.message}`)).toEqual([]);
        return { ...(d.toJSON() as Doc), file };
      }),
    );
}

const docs = documents();
const find = (kind: string, name: string) => {
  const doc = docs.find((d) => d.kind === kind && d.metadata.name === name);
  if (!doc) throw new Error(`no ${kind} ${name} in deploy/kubernetes`);
  return doc;
};
const engineData = find('ConfigMap', 'tideway-engine').data!;
/** A ConfigMap engine config with its start-time placeholders filled in as the container does. */
const engineOf = (key: string, values: Record<string, string> = {}): EngineConfig => {
  let text = engineData[key];
  for (const [placeholder, value] of Object.entries(values)) text = text.replaceAll(placeholder, value);
  return loadEngineConfig({ file: `deploy/kubernetes/configmap.yaml#${key}`, text });
};
const template = (doc: Doc): PodTemplate => doc.spec!.template!;
const container = (doc: Doc): Container => template(doc).spec.containers[0];
const startScript = (doc: Doc) => [...(container(doc).command ?? []), ...(container(doc).args ?? [])].join(' ');

describe('deploy/kubernetes', () => {
  it('has only well-formed documents, each named and of a known kind', () => {
    const kinds = new Set(['ConfigMap', 'StatefulSet', 'Deployment', 'Service', 'PersistentVolumeClaim', 'NetworkPolicy']);
    const manifests = docs.filter((d) => d.kind !== 'Kustomization');
    expect(manifests.length).toBeGreaterThanOrEqual(9);
    // kustomization.yaml lists every other file.
    const listed = (docs.find((d) => d.kind === 'Kustomization') as unknown as { resources: string[] }).resources;
    expect([...listed].sort()).toEqual([...new Set(manifests.map((d) => d.file))].sort());
    for (const d of manifests) {
      expect(d.apiVersion, d.file).toMatch(/^(v1|apps\/v1|networking\.k8s\.io\/v1)$/);
      expect(kinds.has(d.kind), `${d.file}: ${d.kind}`).toBe(true);
      expect(d.metadata.name, d.file).toMatch(/^[a-z0-9-]+$/);
      // A workload's selector matches its pod template's labels.
      if (d.kind === 'StatefulSet' || d.kind === 'Deployment')
        expect(template(d).metadata.labels).toMatchObject(d.spec!.selector!.matchLabels);
    }
  });

  it('every engine config in the ConfigMap loads, and every container reads one that exists', () => {
    for (const key of Object.keys(engineData))
      expect(() => engineOf(key, { POD_NAME: 'tideway-coordinator-0', POD_IP: '10.0.0.7' }), key).not.toThrow();
    for (const d of docs.filter((x) => x.kind === 'StatefulSet' || x.kind === 'Deployment')) {
      if (d.metadata.name === 'tideway-redis') continue;
      const read = /\/etc\/tideway\/([a-z-]+\.yaml)/.exec(startScript(d))?.[1];
      expect(read && engineData[read], `${d.metadata.name} reads /etc/tideway/${read}`).toBeTruthy();
    }
  });

  it('coordinators: a StatefulSet of 3 whose pod DNS names are the addresses every role lists, each advertising its own', () => {
    const sts = find('StatefulSet', 'tideway-coordinator');
    const svc = find('Service', sts.spec!.serviceName!);
    expect(svc.spec).toMatchObject({ clusterIP: 'None', publishNotReadyAddresses: true });
    const port = named(container(sts).ports, 'grpc').containerPort;
    const names = Array.from({ length: sts.spec!.replicas! }, (_, i) => `${sts.metadata.name}-${i}.${svc.metadata.name}:${port}`);
    expect(names).toHaveLength(3);
    for (const key of ['coordinator.yaml', 'resource-manager.yaml', 'worker.yaml'])
      expect(engineOf(key, { POD_IP: '10.0.0.7' }).tideway.coordinator.addresses, key).toEqual(names);
    // The placeholder is filled from the pod's name, which the StatefulSet sets.
    expect(startScript(sts)).toContain('s/POD_NAME/$POD_NAME/');
    expect(named(container(sts).env, 'POD_NAME').valueFrom?.fieldRef?.fieldPath).toBe('metadata.name');
    names.forEach((name, i) => {
      const c = engineOf('coordinator.yaml', { POD_NAME: `${sts.metadata.name}-${i}` });
      expect(c.tideway.coordinator.advertisedAddress).toBe(name);
      expect(c.tideway.coordinator).toMatchObject({ host: '0.0.0.0', port });
    });
    // Every coordinator mounts the one shared checkpoint folder the config names.
    const c = engineOf('coordinator.yaml', { POD_NAME: 'x' });
    const mount = named(container(sts).volumeMounts, 'checkpoints');
    expect(c.checkpoint.storage.pluginConfig.namespace).toBe(`${mount.mountPath}/`);
    const claim = named(template(sts).spec.volumes, 'checkpoints').persistentVolumeClaim!.claimName;
    expect(find('PersistentVolumeClaim', claim).spec!.accessModes).toEqual(['ReadWriteMany']);
  });

  it('the state Redis: one pod with AOF on a persistent volume, at the address the coordinators use', () => {
    const sts = find('StatefulSet', 'tideway-redis');
    const args = container(sts).args ?? [];
    expect(args[args.indexOf('--appendonly') + 1]).toBe('yes');
    expect(args[args.indexOf('--appendfsync') + 1]).toBe('everysec');
    const [dataMount] = container(sts).volumeMounts ?? [];
    expect(sts.spec!.volumeClaimTemplates![0].metadata.name).toBe(dataMount?.name);
    expect(args[args.indexOf('--dir') + 1]).toBe(dataMount?.mountPath);
    const c = engineOf('coordinator.yaml', { POD_NAME: 'x' });
    expect(c.tideway.stateStore.type).toBe('redis');
    expect(c.tideway.stateStore.redis.address).toBe(
      `${sts.metadata.name}-0.${sts.spec!.serviceName}:${container(sts).ports![0].containerPort}`,
    );
    expect(find('Service', sts.spec!.serviceName!).spec!.clusterIP).toBe('None');
  });

  it('workers advertise their pod IP and wait longer than a lease before giving their leader up', () => {
    const d = find('Deployment', 'tideway-worker');
    expect(startScript(d)).toContain('s/POD_IP/$POD_IP/');
    expect(named(container(d).env, 'POD_IP').valueFrom?.fieldRef?.fieldPath).toBe('status.podIP');
    const w = engineOf('worker.yaml', { POD_IP: '10.0.0.7' });
    expect(w.tideway.worker).toMatchObject({ host: '0.0.0.0', advertisedAddress: '10.0.0.7:5803' });
    expect(w.tideway.worker.leaderLossTimeout).toBeGreaterThan(engineOf('coordinator.yaml', { POD_NAME: 'x' }).tideway.ha.leaseTtl);
  });
});

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
