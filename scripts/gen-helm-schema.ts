// `pnpm gen:helm-schema`: writes deploy/helm/tideway/values.schema.json. The chart's own values
// are described here; `engine`, `limits` and `auth.namespaces` are derived from the engine
// settings tree (libs/config's SEATUNNEL_ENGINE_SETTINGS and TIDEWAY_SETTINGS, the tree that
// validates engine configs), so a key the engine does not know, or a value of the wrong type,
// is refused by `helm install` instead of by the pods when they start. A test fails when the
// committed file differs from this script's output.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SEATUNNEL_ENGINE_SETTINGS, TIDEWAY_SETTINGS, type EngineSetting } from '@tideway/config';

type Schema = Record<string, unknown>;

/** A case-insensitive pattern for an enum (the engine matches enum values ignoring case). */
function anyCase(values: readonly string[]): string {
  const letters = (v: string) =>
    [...v]
      .map((ch) =>
        ch.toLowerCase() !== ch.toUpperCase() ? `[${ch.toUpperCase()}${ch.toLowerCase()}]` : ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
      )
      .join('');
  return `^(${values.map(letters).join('|')})$`;
}

const SCALAR: Schema = { type: ['string', 'number', 'boolean'] };

/** The JSON schema of one engine setting. */
export function settingSchema(s: EngineSetting): Schema {
  switch (s.type) {
    case 'int':
      return {
        type: 'integer',
        description: s.description,
        ...(s.min !== undefined && { minimum: s.min }),
        ...(s.max !== undefined && { maximum: s.max }),
      };
    case 'boolean':
      return { type: 'boolean', description: s.description };
    case 'string':
      return { type: 'string', description: s.description };
    case 'enum':
      return { type: 'string', description: `${s.description} One of ${s.values.join(', ')} (any case).`, pattern: anyCase(s.values) };
    case 'string-list':
      return { type: 'array', description: s.description, items: { type: 'string' } };
    case 'section':
      return sectionSchema(s.fields, s.description);
    case 'map':
      return {
        type: 'object',
        description: s.description,
        ...(s.known && { properties: Object.fromEntries(Object.entries(s.known).map(([k, v]) => [k, settingSchema(v)])) }),
        additionalProperties: s.each ? settingSchema(s.each) : SCALAR,
      };
  }
}

function sectionSchema(fields: Readonly<Record<string, EngineSetting>>, description?: string): Schema {
  return {
    type: 'object',
    ...(description && { description }),
    properties: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, settingSchema(v)])),
    additionalProperties: false,
  };
}

const field = (section: EngineSetting, name: string): EngineSetting => {
  if (section.type !== 'section') throw new Error(`not a section: ${name}`);
  return section.fields[name];
};

// Small builders for the chart's own values.
const obj = (description: string, properties: Record<string, Schema>, extra: Schema = {}): Schema => ({
  type: 'object',
  description,
  properties,
  additionalProperties: false,
  ...extra,
});
const str = (description: string, extra: Schema = {}): Schema => ({ type: 'string', description, ...extra });
const bool = (description: string): Schema => ({ type: 'boolean', description });
const int = (description: string, minimum: number, maximum?: number): Schema => ({
  type: 'integer',
  description,
  minimum,
  ...(maximum !== undefined && { maximum }),
});
const port = (description: string): Schema => int(description, 1, 65535);
/** A piece of Kubernetes API (a pod's affinity, a probe, resources): checked by Kubernetes itself. */
const k8s = (description: string, type: 'object' | 'array' = 'object'): Schema => ({ type, description });
const stringMap = (description: string): Schema => ({ type: 'object', description, additionalProperties: { type: 'string' } });
const quantity = (description: string): Schema => ({ type: ['string', 'number'], description });

/** What every Tideway role's values have. */
function role(what: string, grpcPort: number, metricsPort: number): Record<string, Schema> {
  return {
    port: port(`gRPC port of the ${what} (${grpcPort}).`),
    metricsPort: port(`Prometheus endpoint of the ${what} (${metricsPort}); also the liveness probe's target with TLS.`),
    resources: k8s(`Container resources of the ${what}.`),
    terminationGracePeriodSeconds: int('Seconds Kubernetes waits after SIGTERM (and the preStop hook) before SIGKILL.', 0),
    pdb: obj(`A PodDisruptionBudget for the ${what}.`, {
      enabled: bool('Make one.'),
      maxUnavailable: {
        type: ['integer', 'string'],
        description: 'Pods a voluntary disruption may take at once (a number or a percentage).',
      },
      minAvailable: { type: ['integer', 'string'], description: 'Instead of maxUnavailable: pods that must stay.' },
    }),
    readinessProbe: k8s('Replaces the chart\'s readiness probe (a Kubernetes Probe); empty: the chart\'s (see the README, "Probes").'),
    livenessProbe: k8s("Replaces the chart's liveness probe (a Kubernetes Probe); empty: the chart's."),
    podAnnotations: stringMap('Annotations of the pods.'),
    extraEnv: k8s('More environment variables of the container (Kubernetes EnvVar list).', 'array'),
    extraVolumes: k8s('More volumes of the pods (Kubernetes Volume list).', 'array'),
    extraVolumeMounts: k8s('More mounts of the container (Kubernetes VolumeMount list), e.g. LocalFile folders.', 'array'),
    nodeSelector: stringMap('Node labels the pods must run on.'),
    tolerations: k8s('Tolerations of the pods.', 'array'),
    affinity: k8s('Affinity of the pods.'),
    topologySpreadConstraints: k8s('Topology spread constraints of the pods.', 'array'),
  };
}

export function valuesSchema(): Schema {
  const auth = TIDEWAY_SETTINGS.auth;
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'Values of the Tideway Helm chart',
    description: 'Generated by scripts/gen-helm-schema.ts (pnpm gen:helm-schema): edit that script, not this file.',
    type: 'object',
    additionalProperties: false,
    properties: {
      global: { type: 'object', description: "Helm's global values (unused by this chart)." },
      image: obj('The Tideway image (built from deploy/Dockerfile).', {
        repository: str('Image repository.', { minLength: 1 }),
        tag: str("Image tag; empty: the chart's appVersion."),
        pullPolicy: str('Image pull policy.', { enum: ['Always', 'IfNotPresent', 'Never'] }),
      }),
      imagePullSecrets: k8s('Secrets to pull the images with (Kubernetes LocalObjectReference list).', 'array'),
      nameOverride: str('Replaces the chart name in object names.'),
      fullnameOverride: str('Replaces <release>-<chart> in object names.'),
      logLevel: str('TIDEWAY_LOG_LEVEL of every process.', { enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] }),
      engine: sectionSchema(
        SEATUNNEL_ENGINE_SETTINGS,
        'seatunnel.engine of every role (deploy/seatunnel.yaml lists each key with its default).',
      ),
      heartbeat: settingSchema(TIDEWAY_SETTINGS.heartbeat),
      limits: settingSchema(TIDEWAY_SETTINGS.limits),
      coordinator: obj('The coordinators (a StatefulSet).', {
        replicas: int('Coordinators; more than one needs Redis (redis.enabled or redis.external.address).', 1),
        ...role('coordinator', 5801, 9101),
        ha: obj('tideway.ha of the coordinators.', {
          leaseTtl: settingSchema(field(TIDEWAY_SETTINGS.ha, 'lease-ttl')),
          retryInterval: settingSchema(field(TIDEWAY_SETTINGS.ha, 'retry-interval')),
        }),
        rest: obj("SeaTunnel's REST API v2 and the dashboard on every coordinator (seatunnel.engine.http).", {
          enabled: bool('Serve it, with a Service <fullname>-coordinator-rest.'),
          port: port('Its port.'),
          service: obj('The Service in front of it.', {
            type: str('Service type.', { enum: ['ClusterIP', 'NodePort', 'LoadBalancer'] }),
          }),
        }),
      }),
      checkpoints: obj("The coordinators' checkpoint folder.", {
        persistence: obj('A volume every coordinator mounts at /var/lib/tideway/checkpoints (localfile storage).', {
          enabled: bool('Use it (false: set engine.checkpoint.storage to s3 or hdfs).'),
          accessModes: {
            type: 'array',
            description: 'Access modes of the claim (ReadWriteMany for several coordinators).',
            items: { type: 'string', enum: ['ReadWriteOnce', 'ReadWriteMany', 'ReadWriteOncePod', 'ReadOnlyMany'] },
            minItems: 1,
          },
          size: quantity('Size of the claim.'),
          storageClass: str('Storage class of the claim; empty: the cluster default.'),
          existingClaim: str('A claim made elsewhere, used instead of making one.'),
          keep: bool('Keep the claim on helm uninstall.'),
        }),
      }),
      resourceManager: obj('The resource manager (a Deployment of one).', role('resource manager', 5802, 9102)),
      worker: obj('The workers (a Deployment).', {
        replicas: int('Workers.', 0),
        ...role('worker', 5803, 9103),
        attributes: settingSchema(field(TIDEWAY_SETTINGS.worker, 'attributes')),
        leaderLossTimeout: settingSchema(field(TIDEWAY_SETTINGS.worker, 'leader-loss-timeout')),
        preStop: obj('The preStop hook of the workers (see the README, "Stopping a worker").', {
          command: { type: 'array', description: 'Its exec command; empty: no hook.', items: { type: 'string' } },
        }),
        stateSizeLimit: quantity("sizeLimit of the worker's /var/lib/tideway (an emptyDir); empty: none."),
      }),
      redis: obj('The state Redis of the coordinators.', {
        enabled: bool("The chart's own Redis StatefulSet."),
        image: obj('Its image.', {
          repository: str('Repository.', { minLength: 1 }),
          tag: str('Tag.', { minLength: 1 }),
          pullPolicy: str('Pull policy.', { enum: ['Always', 'IfNotPresent', 'Never'] }),
        }),
        port: port('Its port.'),
        appendfsync: str('When Redis fsyncs its append-only file.', { enum: ['everysec', 'always'] }),
        persistence: obj('Its data volume.', { size: quantity('Size.'), storageClass: str('Storage class; empty: the default.') }),
        resources: k8s('Container resources.'),
        podSecurityContext: k8s('Pod security context of the Redis pod.'),
        networkPolicy: obj('A NetworkPolicy letting only the coordinators in.', { enabled: bool('Make it.') }),
        nodeSelector: stringMap('Node labels.'),
        tolerations: k8s('Tolerations.', 'array'),
        auth: obj('A password for the state Redis (tideway.state-store.redis.password).', {
          existingSecret: str("A Secret holding it; the chart's Redis then requires it. Empty: no password."),
          key: str('The key of the password in that Secret.', { minLength: 1 }),
        }),
        external: obj('A Redis you run, when redis.enabled is false.', {
          address: str('host:port (on a private network, or with redis.auth).', { pattern: '^$|^[^\\s:]+:[0-9]{1,5}$' }),
        }),
        keyPrefix: settingSchema(field(field(TIDEWAY_SETTINGS['state-store'], 'redis'), 'key-prefix')),
      }),
      tls: obj('Mutual TLS between every process, HTTPS on the REST and metrics ports (docs/security.md).', {
        enabled: bool('Turn it on.'),
        secretName: str('The Secret with ca.pem and <role>.pem / <role>-key.pem of coordinator, resource-manager and worker.'),
      }),
      auth: obj('tideway.auth of the coordinators (docs/security.md).', {
        tokens: {
          type: 'object',
          description: field(auth, 'tokens').description,
          propertyNames: { pattern: '^[A-Za-z0-9._-]+$' },
          additionalProperties: {
            type: 'string',
            pattern: '^\\s*sha256:[0-9a-f]{64}\\s+(admin(\\s+\\S+)?|(viewer|operator)\\s+\\S+)\\s*$',
          },
        },
        certificates: { type: 'object', description: field(auth, 'certificates').description, additionalProperties: { type: 'string' } },
        namespaces: settingSchema(field(auth, 'namespaces')),
      }),
      plugins: obj('A plugin folder: not supported yet (Tideway loads no plugins from a folder); setting either value is refused.', {
        volume: k8s('A volume source for the folder.'),
        mountPath: str('Where it would be mounted.'),
      }),
      metrics: obj('Prometheus scraping.', {
        podAnnotations: bool('prometheus.io/* annotations on every Tideway pod.'),
        serviceMonitor: obj("A ServiceMonitor per role (the Prometheus Operator's CRD).", {
          enabled: bool('Make them.'),
          namespace: str("Their namespace; empty: the release's."),
          labels: stringMap('More labels (e.g. the ones your Prometheus selects).'),
          interval: str('Scrape interval.', { pattern: '^[0-9]+(ms|s|m|h)$' }),
          scrapeTimeout: str('Scrape timeout; empty: the operator default.', { pattern: '^$|^[0-9]+(ms|s|m|h)$' }),
        }),
      }),
      serviceAccount: obj("The pods' service account.", {
        create: bool('Make one (it has no role bound).'),
        name: str('Its name; empty: the full name.'),
        automountToken: bool('Mount its API token in the pods (Tideway calls no Kubernetes API).'),
      }),
      podSecurityContext: k8s('Pod security context of every Tideway pod.'),
      securityContext: k8s('Security context of every container.'),
      tmpSizeLimit: quantity("sizeLimit of every pod's /tmp (an emptyDir); empty: none."),
    },
  };
}

export const SCHEMA_FILE = join(fileURLToPath(new URL('..', import.meta.url)), 'deploy', 'helm', 'tideway', 'values.schema.json');

export function schemaText(): string {
  return `${JSON.stringify(valuesSchema(), null, 2)}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(SCHEMA_FILE, schemaText());
  console.log(`wrote ${SCHEMA_FILE}`);
}
