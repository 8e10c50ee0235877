/**
 * The gRPC side of the cluster's plugin store: workers fetch archives (CoordinatorService
 * FetchPluginPackage, any coordinator: the store is shared), clients install, list and describe
 * packages (JobService; installing needs the admin role, as every JobService method the role
 * table does not list).
 */
import type * as grpc from '@grpc/grpc-js';
import {
  CoordinatorServiceClient,
  WorkerServiceClient,
  type DescribePluginPackageRequest,
  type DescribePluginPackageResponse,
  type FetchPluginPackageRequest,
  type InstallPluginPackageRequest,
  type ListPluginPackagesResponse,
  type PluginPackageChunk,
  type PluginPackageInfo,
  type ProcessPluginPackages,
  type RemovePluginPackageRequest,
} from '@tideway/contracts';
import { ErrorCode, TidewayError, detach } from '@tideway/common';
import { ClientPool, call, channelCredentials, clientOptions, failStream, required, unaryHandler } from '@tideway/rpc';
import { externalPluginPackages, loadPluginsFor } from '@tideway/plugins/lazy';
import type { StoredPackage } from '@tideway/plugins/store';
import type { Dispatcher } from './dispatcher.js';
import type { PluginDistribution } from './plugin-distribution.js';
import type { RemoteResourceManager } from './remote-gateways.js';

/** Bytes per FetchPluginPackage message. */
const CHUNK_BYTES = 1 << 20;
const ASK_DEADLINE_MS = 5_000;

export function packageInfo(e: StoredPackage): PluginPackageInfo {
  return {
    name: e.name,
    version: e.version,
    hash: e.hash,
    api: e.api,
    plugins: e.plugins.map((p) => ({ name: p.name, kind: p.kind })),
    size: e.size,
    installedAtMs: e.installedAt,
    lastUsedMs: e.lastUsedAt,
    jobs: [...e.jobs],
  };
}

/** CoordinatorService.FetchPluginPackage: the archive in chunks, checked against its hash first. */
export function fetchPluginPackageHandler(
  dispatcher: Dispatcher,
): grpc.handleServerStreamingCall<FetchPluginPackageRequest, PluginPackageChunk> {
  return (stream) =>
    detach(
      (async () => {
        try {
          const ref = required(stream.request.package, 'package');
          const store = await dispatcher.plugins.requireStore(`plugin package ${ref.name}@${ref.version}`);
          const bytes = await store.archive(ref);
          for (let at = 0; at < bytes.length; at += CHUNK_BYTES) stream.write({ data: Buffer.from(bytes.subarray(at, at + CHUNK_BYTES)) });
          stream.end();
        } catch (err) {
          failStream(stream, err);
        }
      })(),
      'a FetchPluginPackage stream',
    );
}

export interface PluginServiceContext {
  readonly dispatcher: Dispatcher;
  readonly resources: Pick<RemoteResourceManager, 'listWorkers'>;
  /** The coordinators heard from recently (the state store's records), this one among them. */
  coordinators(): Promise<ReadonlyArray<{ readonly address: string }>>;
  address(): string;
}

const workers = new ClientPool((a) => new WorkerServiceClient(a, channelCredentials(), clientOptions));
const coordinators = new ClientPool((a) => new CoordinatorServiceClient(a, channelCredentials(), clientOptions));

/** CoordinatorService.ListLoadedPluginPackages: the stored packages this coordinator loaded. */
export function listLoadedPluginPackagesHandler(
  dispatcher: Dispatcher,
  address: () => string,
): grpc.handleUnaryCall<object, ProcessPluginPackages> {
  return unaryHandler<object, ProcessPluginPackages>(() => ({
    process: 'coordinator',
    address: address(),
    loaded: [...dispatcher.plugins.loaded.values()],
    error: '',
  }));
}

/** What install, list and describe do, over a coordinator's plugin store (a cluster's, or this host's for --local). */
export const pluginStoreCalls = {
  async install(plugins: PluginDistribution, archive: Uint8Array, source: string): Promise<PluginPackageInfo> {
    if (archive.length === 0) throw new TidewayError(ErrorCode.BAD_REQUEST, 'InstallPluginPackage: the archive is empty');
    return packageInfo(await plugins.install(archive, source || '<archive>'));
  },

  /** The stored packages, and what this process and `others` (the followers, the workers) loaded. */
  async list(
    plugins: PluginDistribution,
    own: Omit<ProcessPluginPackages, 'loaded' | 'error'> = { process: 'local', address: '' },
    others: () => Promise<ProcessPluginPackages[]> = async () => [],
  ): Promise<ListPluginPackagesResponse> {
    const store = await plugins.requireStore('tideway plugins list');
    const here: ProcessPluginPackages = { ...own, loaded: [...plugins.loaded.values()], error: '' };
    const folders: ProcessPluginPackages[] =
      own.process === 'local'
        ? [
            {
              process: 'plugin folders',
              address: '',
              loaded: externalPluginPackages().map((p) => ({ name: p.name, version: p.version, hash: '' })),
              error: '',
            },
          ]
        : [];
    return {
      store: store.description,
      stored: (await store.list()).map(packageInfo),
      processes: [...folders, here, ...(await others())].filter((p) => p.process !== 'local'),
    };
  },

  /** Removes a stored package; `usedBy` names the running jobs using a package, by its hash. */
  async remove(
    plugins: PluginDistribution,
    name: string,
    version: string,
    usedBy: (hash: string) => readonly string[],
  ): Promise<PluginPackageInfo> {
    if (!name || !version)
      throw new TidewayError(ErrorCode.BAD_REQUEST, 'RemovePluginPackage: name the package and its version (name@version)');
    return packageInfo(await plugins.remove(name, version, usedBy));
  },

  async describe(plugins: PluginDistribution, name: string, version: string): Promise<DescribePluginPackageResponse> {
    if (!name) throw new TidewayError(ErrorCode.BAD_REQUEST, 'DescribePluginPackage: name the package (name or name@version)');
    const e = await plugins.find(name, version);
    const { unpackVerified } = await import('@tideway/plugins/store');
    const store = await plugins.requireStore('tideway plugins describe');
    const dir = await unpackVerified(await store.archive(e), e, plugins.cacheDir);
    const registry = await loadPluginsFor(
      e.plugins.map((p) => ({ type: p.kind, name: p.name })),
      [dir],
    );
    const described = e.plugins.map((p) => {
      const f = registry.get(p.kind, p.name);
      return {
        name: f.name,
        kind: f.type,
        description: f.description,
        options: f.spec.options.map((o) => ({
          name: o.name,
          type: o.type,
          required: o.required ?? false,
          ...(o.default !== undefined ? { default: o.default } : {}),
          description: o.description,
        })),
      };
    });
    return { package: packageInfo(e), pluginsJson: JSON.stringify(described) };
  },
};

/** The JobService methods of the plugin store. */
export function pluginServiceHandlers(c: PluginServiceContext, ready: () => Promise<void>): grpc.UntypedServiceImplementation {
  const plugins = c.dispatcher.plugins;
  /** What `process` at `address` loaded (`request` asks it), or why it did not answer. */
  const ask = async (process: string, address: string, request: () => Promise<ProcessPluginPackages>): Promise<ProcessPluginPackages> => {
    try {
      return { ...(await request()), process, address };
    } catch (err) {
      return { process, address, loaded: [], error: (err as Error).message.split('\n')[0] ?? '' };
    }
  };
  const deadline = { deadlineMs: ASK_DEADLINE_MS };
  /** The followers (the coordinators the state store heard from, but this one) and the workers. */
  const askOthers = async (): Promise<ProcessPluginPackages[]> => {
    const [{ workers: list }, known] = await Promise.all([
      c.resources.listWorkers().catch(() => ({ workers: [] })),
      c.coordinators().catch(() => []),
    ]);
    const followers = known.filter((k) => k.address !== c.address());
    return Promise.all([
      ...followers.map((f) =>
        ask('coordinator (follower)', f.address, () => call(coordinators.get(f.address), 'listLoadedPluginPackages', {}, deadline)),
      ),
      ...list.map((w) => ask('worker', w.address, () => call(workers.get(w.address), 'listLoadedPluginPackages', {}, deadline))),
    ]);
  };
  return {
    installPluginPackage: unaryHandler<InstallPluginPackageRequest, PluginPackageInfo>(async (req) => {
      await ready();
      return pluginStoreCalls.install(plugins, req.archive, req.source);
    }),
    listPluginPackages: unaryHandler<object, ListPluginPackagesResponse>(async () => {
      await ready();
      return pluginStoreCalls.list(plugins, { process: 'coordinator', address: c.address() }, askOthers);
    }),
    describePluginPackage: unaryHandler<DescribePluginPackageRequest, DescribePluginPackageResponse>(async (req) => {
      await ready();
      return pluginStoreCalls.describe(plugins, req.name, req.version);
    }),
    removePluginPackage: unaryHandler<RemovePluginPackageRequest, PluginPackageInfo>(async (req) => {
      await ready(); // the leader: it knows the running jobs
      return pluginStoreCalls.remove(plugins, req.name, req.version, (hash) => c.dispatcher.jobsUsingPackage(hash));
    }),
  };
}
