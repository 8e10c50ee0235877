/**
 * The Helm chart (deploy/helm/tideway), checked statically: no Kubernetes cluster and no
 * container daemon run here. For each value set under deploy/helm/tideway/ci/:
 * - `helm lint --strict` passes, and `helm template` renders (values.schema.json included);
 * - tideway-k8s-validate decodes every rendered document strictly into the k8s.io/api types
 *   (unknown fields and wrong types fail; decision 0047);
 * - the containers' start scripts, run as written up to where they start the CLI, write engine
 *   configs that load with Tideway's own loader (the Redis password included);
 * - the engine configs inside the ConfigMap load with Tideway's own loader (placeholders filled
 *   in as the containers do), and the names that must agree across objects do: the
 *   coordinators' pod DNS names in every coordinator.addresses, each one's advertised address,
 *   the Redis address, the checkpoint mount, the files each container reads, TLS files, ports,
 *   probes, scrape targets, PodDisruptionBudget and ServiceMonitor selectors;
 * - the security settings hold: non-root, read-only root filesystem with volumes where the
 *   processes write, every capability dropped.
 * Values the schema or the chart refuse are refused with a sentence naming the value.
 */
import { X509Certificate } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { loadEngineConfig, type EngineConfig } from '@tideway/config';
import { parseCertificateTable, parseTokenTable } from '@tideway/rpc';
import { runCli } from '../conformance/cli-process.js';
import { schemaText, SCHEMA_FILE } from '../../scripts/gen-helm-schema.js';
import { CHART, helmTools, KUBE_VERSION, run, template, type HelmTools } from './helm-tools.js';

/** The parts of Kubernetes objects these checks read. */
interface Probe {
  grpc?: { port: number };
  tcpSocket?: { port: string | number };
  httpGet?: { path: string; port: string | number; scheme?: string };
  exec?: { command: string[] };
}
interface Container {
  name: string;
  command?: string[];
  args?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: { name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[];
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  securityContext?: {
    readOnlyRootFilesystem?: boolean;
    allowPrivilegeEscalation?: boolean;
    capabilities?: { drop?: string[]; add?: string[] };
  };
}
interface Volume {
  name: string;
  persistentVolumeClaim?: { claimName: string };
  configMap?: { name: string; items?: { key: string; path: string }[] };
  secret?: { secretName: string; items?: { key: string; path: string }[] };
  emptyDir?: Record<string, unknown>;
}
interface PodTemplate {
  metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
  spec: {
    containers: Container[];
    volumes?: Volume[];
    subdomain?: string;
    securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
    automountServiceAccountToken?: boolean;
    terminationGracePeriodSeconds?: number;
  };
}
interface Doc {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  spec?: {
    selector?: { matchLabels: Record<string, string> } & Record<string, string>;
    template?: PodTemplate;
    serviceName?: string;
    replicas?: number;
    volumeClaimTemplates?: { metadata: { name: string } }[];
    accessModes?: string[];
    clusterIP?: string;
    publishNotReadyAddresses?: boolean;
    ports?: { name: string; port: number }[];
    endpoints?: { port: string; scheme?: string; tlsConfig?: { serverName?: string; ca?: { secret?: { name: string; key: string } } } }[];
    maxUnavailable?: number | string;
    minAvailable?: number | string;
  };
}

/** The entry of a list (ports, env, mounts, volumes) with that name; fails the test when there is none. */
function named<T extends { name?: string }>(items: readonly T[] | undefined, name: string): T {
  const item = items?.find((i) => i.name === name);
  if (!item) throw new Error(`no entry named ${name}`);
  return item;
}

/** One rendering of the chart and what the checks read from it. */
class Rendering {
  constructor(
    readonly label: string,
    readonly docs: Doc[],
  ) {}

  find(kind: string, name: string): Doc {
    const doc = this.docs.find((d) => d.kind === kind && d.metadata.name === name);
    if (!doc) throw new Error(`${this.label}: no ${kind} ${name} in the rendered chart`);
    return doc;
  }

  has(kind: string, name: string): boolean {
    return this.docs.some((d) => d.kind === kind && d.metadata.name === name);
  }

  get workloads(): Doc[] {
    return this.docs.filter((d) => d.kind === 'StatefulSet' || d.kind === 'Deployment');
  }

  get engineData(): Record<string, string> {
    return this.find('ConfigMap', 'tideway-engine').data!;
  }

  /** A ConfigMap engine config with its start-time placeholders filled in as the container does. */
  engine(key: string, values: Record<string, string> = {}): EngineConfig {
    let text = this.engineData[key];
    for (const [placeholder, value] of Object.entries(values)) text = text.replaceAll(placeholder, value);
    return loadEngineConfig({ file: `${this.label}: ConfigMap tideway-engine#${key}`, text });
  }
}

const template_ = (doc: Doc): PodTemplate => doc.spec!.template!;
const container = (doc: Doc): Container => template_(doc).spec.containers[0];
const startScript = (doc: Doc) => [...(container(doc).command ?? []), ...(container(doc).args ?? [])].join(' ');
/**
 * Runs a container's `sh -c` start script as written, with the ConfigMap's files where the pod
 * has them and its /tmp moved to a temp folder, up to where it would start the CLI (that `exec`
 * is replaced by printing the engine config it would read). Returns that config.
 */
function startScriptOutput(r: Rendering, workload: Doc, env: Record<string, string>): string {
  const c = container(workload);
  expect(c.command).toEqual(['sh', '-c']);
  const dir = mkdtempSync(join(tmpdir(), 'tideway-helm-start-'));
  try {
    mkdirSync(join(dir, 'engine'));
    mkdirSync(join(dir, 'tmp'));
    for (const [key, text] of Object.entries(r.engineData)) writeFileSync(join(dir, 'engine', key), text);
    const script = c.args![0];
    const cli = /exec node --import tsx --conditions=source services\/cli\/src\/main\.ts cluster start .*--engine-config (\S+)/.exec(
      script,
    );
    expect(cli, script).not.toBeNull();
    const moved = `${script.slice(0, cli!.index)}cat ${cli![1]}`.replace(/\/etc\/tideway\/engine\/|\/tmp\//g, (path) =>
      path === '/tmp/' ? `${dir}/tmp/` : `${dir}/engine/`,
    );
    const res = spawnSync('sh', ['-c', moved], { encoding: 'utf8', env: { PATH: process.env.PATH, ...env } });
    expect(res.status, res.stderr).toBe(0);
    return res.stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const matches = (selector: Record<string, string>, labels: Record<string, string> | undefined) =>
  Object.entries(selector).every(([k, v]) => labels?.[k] === v);

/** The value sets the suite renders: deploy/helm/tideway/ci/*-values.yaml. */
const VALUE_SETS = readdirSync(join(CHART, 'ci'))
  .filter((f) => f.endsWith('-values.yaml'))
  .sort();
/** Render flags per value set: the ServiceMonitor's CRD is offered to the one that needs it. */
const API_VERSIONS = ['--api-versions', 'monitoring.coreos.com/v1/ServiceMonitor'];

const tools: HelmTools | undefined = helmTools();
const renderings = new Map<string, Rendering>();
/** The raw text `helm template` printed, per value set. */
const rendered = new Map<string, string>();

function values(file: string): Record<string, unknown> {
  return (parseAllDocuments(readFileSync(join(CHART, 'ci', file), 'utf8'))[0].toJSON() ?? {}) as Record<string, unknown>;
}
const get = (obj: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), obj);

describe.skipIf(!tools)('deploy/helm/tideway', () => {
  const t = tools!;

  beforeAll(() => {
    expect(VALUE_SETS).toEqual([
      'default-values.yaml',
      'external-redis-tls-tokens-values.yaml',
      'ha-redis-values.yaml',
      'servicemonitor-values.yaml',
    ]);
    for (const file of VALUE_SETS) {
      const r = template(t, [join(CHART, 'ci', file)], [], API_VERSIONS);
      expect(r.stderr, `helm template -f ci/${file}`).toBe('');
      expect(r.code, `helm template -f ci/${file}: ${r.stderr}`).toBe(0);
      const docs = parseAllDocuments(r.stdout)
        .map((d) => {
          expect(d.errors.map((e) => `${file}: ${e.message}`)).toEqual([]);
          return d.toJSON() as Doc | null;
        })
        .filter((d): d is Doc => d !== null);
      renderings.set(file, new Rendering(file, docs));
      rendered.set(file, r.stdout);
    }
  });

  it('values.schema.json is what scripts/gen-helm-schema.ts makes from the engine settings (pnpm gen:helm-schema)', () => {
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(schemaText());
  });

  it.each(VALUE_SETS)('%s: helm lint --strict passes', (file) => {
    const r = run(t.helm, ['lint', '--strict', CHART, '-f', join(CHART, 'ci', file), '--kube-version', KUBE_VERSION]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
    // Lint reports a template's `fail` as INFO; none may fire, except that lint cannot be told
    // (as `helm template --api-versions` can) that the cluster has the ServiceMonitor CRD.
    const fails = (r.stdout + r.stderr)
      .split('\n')
      .filter((l) => l.includes('Fail:') && !l.includes('no monitoring.coreos.com/v1 ServiceMonitor'));
    expect(fails).toEqual([]);
  });

  it.each(VALUE_SETS)('%s: every rendered document decodes strictly into its Kubernetes API type', (file) => {
    const r = run(t.validate, [], rendered.get(file));
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const kinds = renderings.get(file)!.docs.length;
    expect(r.stdout).toContain(`${kinds} documents, 0 failed`);
  });

  it('the validator refuses unknown fields, wrong types, unknown kinds and mismatched selectors', () => {
    const deployment = (spec: string) =>
      `apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: w }\nspec:\n${spec}\n` +
      '  template:\n    metadata: { labels: { app: w } }\n    spec:\n      containers:\n        - name: w\n          image: x\n';
    const cases: Array<[string, RegExp]> = [
      [deployment('  selector: { matchLabels: { app: w } }\n  replica: 2'), /unknown field "spec.replica"/],
      [deployment('  selector: { matchLabels: { app: w } }\n  replicas: two'), /replicas/],
      [deployment('  selector: { matchLabels: { app: other } }'), /does not match the pod template's labels/],
      ['apiVersion: v1\nkind: Servic\nmetadata: { name: s }\n', /no kind "Servic"/],
      [
        'apiVersion: v1\nkind: Pod\nmetadata: { name: p }\nspec:\n  containers:\n    - name: p\n      image: x\n      readinessProbe: { tcpSocket: { port: grpc } }\n',
        /names port "grpc", which the container does not have/,
      ],
      ['apiVersion: v1\nkind: ConfigMap\nmetadata: { name: Bad_Name }\n', /metadata.name "Bad_Name"/],
    ];
    for (const [doc, message] of cases) {
      const r = run(t.validate, [], doc);
      expect(r.code, doc).toBe(1);
      expect(r.stdout, doc).toMatch(message);
    }
  });

  describe.each(VALUE_SETS)('%s', (file) => {
    const r = () => renderings.get(file)!;
    const v = values(file);
    const coordinators = (get(v, 'coordinator.replicas') as number | undefined) ?? 3;
    const tls = get(v, 'tls.enabled') === true;
    const redisEnabled = get(v, 'redis.enabled') !== false;
    const externalRedis = get(v, 'redis.external.address') as string | undefined;
    const persistence = get(v, 'checkpoints.persistence.enabled') !== false;

    it('every engine config in the ConfigMap loads, and every container reads one that exists', () => {
      for (const key of Object.keys(r().engineData))
        expect(() => r().engine(key, { POD_NAME: 'tideway-coordinator-0', POD_IP: '10.0.0.7' }), key).not.toThrow();
      for (const d of r().workloads) {
        if (d.metadata.name === 'tideway-redis') continue;
        const read = /\/etc\/tideway\/engine\/([a-z-]+\.yaml)/.exec(startScript(d))?.[1];
        expect(read && r().engineData[read], `${d.metadata.name} reads /etc/tideway/engine/${read}`).toBeTruthy();
        // The file is in the pod: the engine volume projects that key of the ConfigMap.
        const engine = named(template_(d).spec.volumes, 'engine').configMap!;
        expect(engine.name).toBe('tideway-engine');
        expect(engine.items).toEqual([{ key: read, path: read }]);
        expect(named(container(d).volumeMounts, 'engine').mountPath).toBe('/etc/tideway/engine');
      }
    });

    it("the containers' start scripts, run as written up to the CLI, write engine configs the loader accepts", () => {
      const password = 'p"a\'s&/\\ w#: d$x\n|';
      const coordinator = r().find('StatefulSet', 'tideway-coordinator');
      const c = loadEngineConfig({
        file: 'coordinator.yaml',
        text: startScriptOutput(r(), coordinator, { POD_NAME: 'tideway-coordinator-1', TIDEWAY_REDIS_PASSWORD: password }),
      });
      expect(c.tideway.coordinator.advertisedAddress).toMatch(/^tideway-coordinator-1\.tideway-coordinator:\d+$/);
      const secret = get(v, 'redis.auth.existingSecret') as string | undefined;
      if (secret) {
        // The password, whatever its characters, reaches the config as written in the Secret.
        expect(c.tideway.stateStore.redis.password).toBe(password);
        expect(named(container(coordinator).env, 'TIDEWAY_REDIS_PASSWORD').valueFrom).toEqual({
          secretKeyRef: { name: secret, key: get(v, 'redis.auth.key') ?? 'password' },
        });
        if (redisEnabled) {
          const redis = container(r().find('StatefulSet', 'tideway-redis'));
          expect(redis.args?.slice(-2)).toEqual(['--requirepass', '$(REDIS_PASSWORD)']);
          for (const name of ['REDIS_PASSWORD', 'REDISCLI_AUTH'])
            expect(named(redis.env, name).valueFrom).toEqual({
              secretKeyRef: { name: secret, key: get(v, 'redis.auth.key') ?? 'password' },
            });
        }
      } else {
        expect(c.tideway.stateStore.redis.password).toBe('');
        expect(startScript(coordinator)).not.toContain('TIDEWAY_REDIS_PASSWORD');
      }
      const worker = r().find('Deployment', 'tideway-worker');
      const w = loadEngineConfig({
        file: 'worker.yaml',
        text: startScriptOutput(r(), worker, { POD_NAME: 'tideway-worker-5d8f-x2x9q', POD_IP: '10.0.0.7' }),
      });
      expect(w.tideway.worker.advertisedAddress).toMatch(
        tls ? /^tideway-worker-5d8f-x2x9q\.tideway-worker\.data\.svc:\d+$/ : /^10\.0\.0\.7:\d+$/,
      );
    });

    it('coordinators: a StatefulSet whose pod DNS names are the addresses every role lists, each advertising its own', () => {
      const sts = r().find('StatefulSet', 'tideway-coordinator');
      expect(sts.spec!.replicas).toBe(coordinators);
      const svc = r().find('Service', sts.spec!.serviceName!);
      expect(svc.spec).toMatchObject({ clusterIP: 'None', publishNotReadyAddresses: true });
      const port = named(container(sts).ports, 'grpc').containerPort;
      const names = Array.from({ length: coordinators }, (_, i) => `${sts.metadata.name}-${i}.${svc.metadata.name}:${port}`);
      for (const key of ['coordinator.yaml', 'resource-manager.yaml', 'worker.yaml'])
        expect(r().engine(key, { POD_IP: '10.0.0.7', POD_NAME: 'w' }).tideway.coordinator.addresses, key).toEqual(names);
      // The placeholder is filled from the pod's name, which the StatefulSet sets.
      expect(startScript(sts)).toContain('s/POD_NAME/$POD_NAME/');
      expect(startScript(sts)).toMatch(/> \/tmp\/coordinator\.yaml && .*exec .* --engine-config \/tmp\/coordinator\.yaml /);
      expect(named(container(sts).env, 'POD_NAME').valueFrom?.fieldRef?.fieldPath).toBe('metadata.name');
      names.forEach((name, i) => {
        const c = r().engine('coordinator.yaml', { POD_NAME: `${sts.metadata.name}-${i}` });
        expect(c.tideway.coordinator.advertisedAddress).toBe(name);
        expect(c.tideway.coordinator).toMatchObject({ host: '0.0.0.0', port });
      });
      const c = r().engine('coordinator.yaml', { POD_NAME: 'x' });
      if (persistence) {
        // Every coordinator mounts the one checkpoint folder the config names.
        const mount = named(container(sts).volumeMounts, 'checkpoints');
        expect(c.checkpoint.storage).toMatchObject({ type: 'localfile' });
        expect(c.checkpoint.storage.pluginConfig.namespace).toBe(`${mount.mountPath}/`);
        const claim = named(template_(sts).spec.volumes, 'checkpoints').persistentVolumeClaim!.claimName;
        const modes = r().find('PersistentVolumeClaim', claim).spec!.accessModes;
        expect(modes).toEqual(coordinators > 1 ? ['ReadWriteMany'] : (get(v, 'checkpoints.persistence.accessModes') ?? ['ReadWriteMany']));
      } else {
        expect(template_(sts).spec.volumes?.some((x) => x.name === 'checkpoints')).toBe(false);
        expect(c.checkpoint.storage.type).not.toBe('localfile');
      }
    });

    it('the state store: the chart Redis (AOF on a persistent volume), an external one, or memory for one coordinator', () => {
      const c = r().engine('coordinator.yaml', { POD_NAME: 'x' });
      if (redisEnabled) {
        const sts = r().find('StatefulSet', 'tideway-redis');
        const args = container(sts).args ?? [];
        expect(args[args.indexOf('--appendonly') + 1]).toBe('yes');
        expect(args[args.indexOf('--appendfsync') + 1]).toBe(get(v, 'redis.appendfsync') ?? 'everysec');
        const dataMount = named(container(sts).volumeMounts, 'data');
        expect(sts.spec!.volumeClaimTemplates![0].metadata.name).toBe(dataMount.name);
        expect(args[args.indexOf('--dir') + 1]).toBe(dataMount.mountPath);
        const port = named(container(sts).ports, 'redis').containerPort;
        expect(args[args.indexOf('--port') + 1]).toBe(String(port));
        expect(c.tideway.stateStore).toMatchObject({
          type: 'redis',
          redis: { address: `${sts.metadata.name}-0.${sts.spec!.serviceName}:${port}` },
        });
        expect(r().find('Service', sts.spec!.serviceName!).spec!.clusterIP).toBe('None');
        // Only the coordinators may connect.
        const policy = r().find('NetworkPolicy', 'tideway-redis') as unknown as {
          spec: {
            podSelector: { matchLabels: Record<string, string> };
            ingress: { from: { podSelector: { matchLabels: Record<string, string> } }[] }[];
          };
        };
        expect(matches(policy.spec.podSelector.matchLabels, template_(sts).metadata.labels)).toBe(true);
        const allowed = policy.spec.ingress[0].from[0].podSelector.matchLabels;
        for (const w of r().workloads)
          expect(matches(allowed, template_(w).metadata.labels), w.metadata.name).toBe(w.metadata.name === 'tideway-coordinator');
      } else {
        expect(r().has('StatefulSet', 'tideway-redis')).toBe(false);
        if (externalRedis) expect(c.tideway.stateStore).toMatchObject({ type: 'redis', redis: { address: externalRedis } });
        else expect(c.tideway.stateStore.type).toBe('memory');
      }
      if (c.tideway.stateStore.type === 'redis') expect(c.tideway.stateStore.redis.keyPrefix).toBe(get(v, 'redis.keyPrefix') ?? 'tideway:');
    });

    it('workers advertise an address the coordinator can dial (pod IP, or with TLS a name its certificate can hold) and outwait a lease', () => {
      const d = r().find('Deployment', 'tideway-worker');
      expect(startScript(d)).toContain('s/POD_IP/$POD_IP/');
      expect(startScript(d)).toContain('s/POD_NAME/$POD_NAME/');
      expect(named(container(d).env, 'POD_IP').valueFrom?.fieldRef?.fieldPath).toBe('status.podIP');
      expect(named(container(d).env, 'POD_NAME').valueFrom?.fieldRef?.fieldPath).toBe('metadata.name');
      const w = r().engine('worker.yaml', { POD_IP: '10.0.0.7', POD_NAME: 'tideway-worker-5d8f-x2x9q' });
      const port = named(container(d).ports, 'grpc').containerPort;
      const svc = r().find('Service', 'tideway-worker');
      if (tls) {
        // The pod's DNS record under the headless Service: <hostname>.<subdomain>.<namespace>.svc.
        expect(template_(d).spec.subdomain).toBe(svc.metadata.name);
        expect(svc.spec).toMatchObject({ clusterIP: 'None', publishNotReadyAddresses: true });
        expect(w.tideway.worker.advertisedAddress).toBe(`tideway-worker-5d8f-x2x9q.${svc.metadata.name}.data.svc:${port}`);
      } else {
        expect(w.tideway.worker.advertisedAddress).toBe(`10.0.0.7:${port}`);
      }
      expect(w.tideway.worker).toMatchObject({ host: '0.0.0.0', port });
      expect(w.tideway.worker.leaderLossTimeout).toBeGreaterThan(r().engine('coordinator.yaml', { POD_NAME: 'x' }).tideway.ha.leaseTtl);
      const rm = r().find('Deployment', 'tideway-resource-manager');
      const rmSvc = r().find('Service', 'tideway-resource-manager');
      expect(w.tideway.resourceManager).toEqual({ host: rmSvc.metadata.name, port: named(container(rm).ports, 'grpc').containerPort });
      expect(matches(rmSvc.spec!.selector as Record<string, string>, template_(rm).metadata.labels)).toBe(true);
    });

    it('the worker preStop hook runs only what the values name; SIGTERM drains the worker within 5 s less than its grace period', () => {
      const d = r().find('Deployment', 'tideway-worker');
      const command = get(v, 'worker.preStop.command') as string[] | undefined;
      if (command?.length) expect(container(d).lifecycle?.preStop?.exec?.command).toEqual(command);
      else expect(container(d).lifecycle).toBeUndefined();
      const grace = (get(v, 'worker.terminationGracePeriodSeconds') as number | undefined) ?? 30;
      expect(template_(d).spec.terminationGracePeriodSeconds).toBe(grace);
      const w = r().engine('worker.yaml', { POD_NAME: 'p', POD_IP: '10.0.0.7' });
      expect(w.tideway.drain.gracePeriod).toBe(Math.max(0, grace - 5) * 1000);
    });

    it('TLS: each role mounts its own certificate and key and the CA from the Secret, at the files its engine config names', () => {
      for (const [workload, role] of [
        ['tideway-coordinator', 'coordinator'],
        ['tideway-resource-manager', 'resource-manager'],
        ['tideway-worker', 'worker'],
      ] as const) {
        const d = r().workloads.find((x) => x.metadata.name === workload)!;
        const config = r().engine(`${role}.yaml`, { POD_NAME: 'p', POD_IP: '10.0.0.7' }).tideway.tls;
        if (!tls) {
          expect(config.caFile, role).toBe('');
          expect(template_(d).spec.volumes?.some((x) => x.name === 'tls')).toBe(false);
          continue;
        }
        const secret = named(template_(d).spec.volumes, 'tls').secret!;
        expect(secret.secretName).toBe(get(v, 'tls.secretName'));
        const mount = named(container(d).volumeMounts, 'tls');
        expect(mount.readOnly).toBe(true);
        const files = Object.fromEntries(secret.items!.map((i) => [`${mount.mountPath}/${i.path}`, i.key]));
        expect(files).toEqual({
          [config.caFile]: 'ca.pem',
          [config.certFile]: `${role}.pem`,
          [config.keyFile]: `${role}-key.pem`,
        });
      }
    });

    it('auth: tokens, certificates and namespace limits parse as the coordinator parses them at start', () => {
      const auth = r().engine('coordinator.yaml', { POD_NAME: 'x' }).tideway.auth;
      expect(parseTokenTable(auth.tokens ?? {}, 'tideway.auth.tokens').map((e) => e.name)).toEqual(
        Object.keys((get(v, 'auth.tokens') as object) ?? {}),
      );
      expect(() => parseCertificateTable(auth.certificates ?? {}, 'tideway.auth.certificates')).not.toThrow();
      expect(Object.keys(auth.namespaces ?? {})).toEqual(Object.keys((get(v, 'auth.namespaces') as object) ?? {}));
    });

    it('probes: /readyz and /livez on the metrics port, over HTTPS with TLS (the kubelet has no client certificate)', () => {
      for (const name of ['tideway-coordinator', 'tideway-resource-manager', 'tideway-worker']) {
        const c = container(r().workloads.find((x) => x.metadata.name === name)!);
        const scheme = tls ? 'HTTPS' : 'HTTP';
        expect(c.readinessProbe, name).toMatchObject({ httpGet: { path: '/readyz', port: 'metrics', scheme } });
        expect(c.livenessProbe, name).toMatchObject({ httpGet: { path: '/livez', port: 'metrics', scheme } });
      }
    });

    it('metrics: every process serves them on the port its Service and scrape settings name', () => {
      const podAnnotations = get(v, 'metrics.podAnnotations') !== false;
      for (const name of ['tideway-coordinator', 'tideway-resource-manager', 'tideway-worker']) {
        const d = r().workloads.find((x) => x.metadata.name === name)!;
        const port = named(container(d).ports, 'metrics').containerPort;
        expect(startScript(d)).toMatch(new RegExp(`--metrics-port,? "?${port}"?,? --metrics-host,? 0\\.0\\.0\\.0`));
        const svc = r().find('Service', name);
        expect(named(svc.spec!.ports, 'metrics').port).toBe(port);
        const annotations = template_(d).metadata.annotations ?? {};
        if (podAnnotations)
          expect(annotations).toMatchObject({
            'prometheus.io/scrape': 'true',
            'prometheus.io/port': String(port),
            'prometheus.io/path': '/metrics',
            ...(tls && { 'prometheus.io/scheme': 'https' }),
          });
        else expect(annotations['prometheus.io/scrape']).toBeUndefined();
      }
      const monitors = r().docs.filter((d) => d.kind === 'ServiceMonitor');
      if (get(v, 'metrics.serviceMonitor.enabled') !== true) {
        expect(monitors).toEqual([]);
        return;
      }
      expect(monitors).toHaveLength(3);
      for (const m of monitors) {
        const services = r().docs.filter((d) => d.kind === 'Service' && matches(m.spec!.selector!.matchLabels, d.metadata.labels));
        expect(services.map((s) => s.metadata.name)).toHaveLength(1);
        expect(services[0].spec!.ports!.some((p) => p.name === m.spec!.endpoints![0].port)).toBe(true);
        expect(m.metadata.namespace).toBe(get(v, 'metrics.serviceMonitor.namespace') || undefined);
        expect(m.metadata.labels).toMatchObject((get(v, 'metrics.serviceMonitor.labels') as object) ?? {});
        if (tls)
          expect(m.spec!.endpoints![0]).toMatchObject({
            scheme: 'https',
            tlsConfig: { ca: { secret: { name: get(v, 'tls.secretName'), key: 'ca.pem' } } },
          });
      }
    });

    it('PodDisruptionBudgets select the coordinators and the workers', () => {
      const pdbs = r().docs.filter((d) => d.kind === 'PodDisruptionBudget');
      const selected = pdbs.map((p) =>
        r()
          .workloads.filter((w) => matches(p.spec!.selector!.matchLabels, template_(w).metadata.labels))
          .map((w) => w.metadata.name),
      );
      expect(selected).toEqual([['tideway-coordinator'], ['tideway-worker']]);
      expect(pdbs[1].spec!.maxUnavailable).toBe(get(v, 'worker.pdb.maxUnavailable') ?? 1);
    });

    it('security: non-root, no service account token, read-only root filesystem with volumes where the processes write, no capabilities', () => {
      for (const d of r().workloads) {
        const pod = template_(d).spec;
        expect(pod.securityContext?.runAsNonRoot, d.metadata.name).toBe(true);
        expect(pod.securityContext?.runAsUser, d.metadata.name).toBeGreaterThan(0);
        expect(pod.automountServiceAccountToken, d.metadata.name).toBe(false);
        for (const c of pod.containers) {
          expect(c.securityContext, c.name).toMatchObject({
            readOnlyRootFilesystem: true,
            allowPrivilegeEscalation: false,
            capabilities: { drop: ['ALL'] },
          });
          expect(c.securityContext?.capabilities?.add, c.name).toBeUndefined();
          const mounts = (c.volumeMounts ?? []).map((m) => m.mountPath);
          // /tmp: the filled-in engine config and tsx's compile cache; Redis writes /data.
          expect(mounts, c.name).toContain(d.metadata.name === 'tideway-redis' ? '/data' : '/tmp');
          for (const m of c.volumeMounts ?? []) {
            const vol = pod.volumes?.find((x) => x.name === m.name);
            const claimed = d.spec!.volumeClaimTemplates?.some((t) => t.metadata.name === m.name);
            expect(vol ?? claimed, `${c.name} mounts ${m.name}`).toBeTruthy();
          }
        }
      }
    });
  });

  it('the certificate host names NOTES prints cover every address a TLS process is dialed at', async () => {
    const file = 'external-redis-tls-tokens-values.yaml';
    const r = renderings.get(file)!;
    const coordinators = r
      .engine('worker.yaml', { POD_IP: '10.0.0.7', POD_NAME: 'p' })
      .tideway.coordinator.addresses.map((a) => a.split(':')[0]);
    const dir = mkdtempSync(join(tmpdir(), 'tideway-helm-certs-'));
    try {
      // `helm template` leaves NOTES.txt out and `helm install --dry-run` needs a cluster: a copy
      // of the chart renders NOTES.txt as a template of its own.
      const copy = join(dir, 'chart');
      cpSync(CHART, copy, { recursive: true });
      const notes = readFileSync(join(copy, 'templates', 'NOTES.txt'), 'utf8');
      writeFileSync(join(copy, 'templates', 'notes-as-yaml.yaml'), `notes: |\n${notes.replace(/^(?!\{\{-)/gm, '  ')}\n`);
      const out = run(t.helm, [
        'template',
        'tideway',
        copy,
        '-n',
        'data',
        '--kube-version',
        KUBE_VERSION,
        '-f',
        join(CHART, 'ci', file),
        '--show-only',
        'templates/notes-as-yaml.yaml',
      ]);
      expect(out.code, out.stderr).toBe(0);
      const text = (parseAllDocuments(out.stdout)[0].toJSON() as { notes: string }).notes;
      const line = /^ *tideway cluster certs --out tls (.*)$/m.exec(text)?.[1];
      expect(line, text).toBeTruthy();
      const hosts = [...line!.matchAll(/--host '([^']+)'/g)].map((m) => m[1]);
      // Each coordinator's name, the resource manager's Service, one wildcard for the workers.
      expect(hosts).toEqual([...coordinators, 'tideway-resource-manager', '*.tideway-worker.data.svc']);
      const res = await runCli(['cluster', 'certs', '--out', join(dir, 'tls'), ...hosts.flatMap((h) => ['--host', h])]);
      expect(res.code, res.stderr).toBe(0);
      const dialed: Array<[string, string]> = [
        ...coordinators.map((h): [string, string] => ['coordinator', h]),
        ['resource-manager', r.engine('worker.yaml', { POD_IP: '10.0.0.7', POD_NAME: 'p' }).tideway.resourceManager.host],
        [
          'worker',
          r
            .engine('worker.yaml', { POD_IP: '10.0.0.7', POD_NAME: 'tideway-worker-5d8f-x2x9q' })
            .tideway.worker.advertisedAddress.split(':')[0],
        ],
      ];
      // Prometheus dials pod IPs: each ServiceMonitor names a host its role's certificate holds.
      for (const m of renderings.get('servicemonitor-values.yaml')!.docs.filter((d) => d.kind === 'ServiceMonitor'))
        dialed.push([m.spec!.selector!.matchLabels['app.kubernetes.io/component'], m.spec!.endpoints![0].tlsConfig!.serverName!]);
      expect(dialed).toHaveLength(coordinators.length + 5);
      for (const [role, host] of dialed) {
        const cert = new X509Certificate(readFileSync(join(dir, 'tls', `${role}.pem`)));
        const peer = { subject: { CN: cert.subject }, subjectaltname: cert.subjectAltName } as unknown as PeerCertificate;
        expect(checkServerIdentity(host, peer), `${role} certificate for ${host}`).toBeUndefined();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it.each<[string, string[], string[], RegExp]>([
    ['a wrong type', ['coordinator.replicas=three'], [], /at '\/coordinator\/replicas': got string, want integer/],
    ['an unknown value', ['coordinator.replica=3'], [], /additional properties 'replica' not allowed/],
    [
      'an engine key the loader does not know',
      ['engine.job-schedule-strategie=WAIT'],
      [],
      /at '\/engine': additional properties 'job-schedule-strategie' not allowed/,
    ],
    ['an engine value of the wrong kind', ['engine.job-schedule-strategy=LATER'], [], /at '\/engine\/job-schedule-strategy'/],
    ['a token line that is not one', ['auth.tokens.ci=operator team-a'], [], /at '\/auth\/tokens\/ci'/],
    [
      'several coordinators without Redis',
      ['redis.enabled=false'],
      [],
      /coordinator\.replicas is 3: several coordinators share their state in Redis/,
    ],
    ['both Redis kinds', ['redis.external.address=r:6379'], [], /redis\.external\.address is set while redis\.enabled is true/],
    [
      'a checkpoint volume several coordinators cannot share',
      ['checkpoints.persistence.accessModes={ReadWriteOnce}'],
      [],
      /needs ReadWriteMany/,
    ],
    [
      'local checkpoints without the shared volume',
      ['checkpoints.persistence.enabled=false'],
      [],
      /a new leader must read what the old one wrote/,
    ],
    ['TLS without its Secret', ['tls.enabled=true'], [], /tls\.enabled is true but tls\.secretName is empty/],
    ['a plugin folder', ['plugins.mountPath=/opt/plugins'], [], /plugins\.volume \/ plugins\.mountPath: not supported/],
    ['a ServiceMonitor without its CRD', ['metrics.serviceMonitor.enabled=true'], [], /no monitoring\.coreos\.com\/v1 ServiceMonitor/],
  ])('refuses %s with a sentence naming the value', (_what, sets, extra, message) => {
    const r = template(t, [], sets, extra);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(message);
  });

  afterAll(() => renderings.clear());
});
