/**
 * The coordinator's side of plugin packages in a cluster (docs/decisions/0085): a job that names
 * a plugin that is not built-in gets the package from the cluster's plugin store (checkpoint
 * storage), the coordinator's own plugin folders feeding the store; the task deployments carry
 * (name, version, sha256) and workers fetch the archive from a coordinator (FetchPluginPackage).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PluginType } from '@tideway/api';
import type { CheckpointStorage } from '@tideway/checkpoint';
import { ConfigError, ErrorCode, TidewayError, logger } from '@tideway/common';
import { PLUGIN_CATALOG, checkNotBuiltin, externalPluginPackages, loadPluginsFor, processPluginCache } from '@tideway/plugins/lazy';
import type { PackageRef, PluginStore, StoredPackage } from '@tideway/plugins/store';

const log = logger('plugin-store');

/** seatunnel.engine.jar-storage, as the coordinator uses it. */
export interface PluginDistributionOptions {
  /** jar-storage.enable: false leaves every process with its own plugin folders. */
  readonly enable: boolean;
  /** Where this process unpacks stored packages (connector-jar-storage-path); empty: its own folder, removed when it stops. */
  readonly cacheDir: string;
  /** connector-jar-expiry-time, in ms. */
  readonly expiryMs: number;
  /** connector-jar-cleanup-task-interval, in ms. */
  readonly cleanupIntervalMs: number;
}

/** The packages a job runs: for its task deployments, and the folders its plan loads them from. */
export interface JobPackages {
  readonly refs: PackageRef[];
  readonly dirs: string[];
}

const isBuiltin = (type: PluginType, name: string) =>
  PLUGIN_CATALOG.some((e) => e.type === type && e.name.toLowerCase() === name.toLowerCase());

export class PluginDistribution {
  private storeOnce?: Promise<PluginStore | undefined>;
  /** The plugin folders' packages this coordinator stored, by folder: what the folder held then, and the hash. */
  private readonly storedFolders = new Map<string, { signature: string; hash: string }>();
  /** Stored packages this process unpacked and loaded, by hash. */
  readonly loaded = new Map<string, PackageRef>();
  private lastCleanup = Date.now();

  /** Where this process unpacks stored packages. */
  readonly cacheDir: string;

  constructor(
    private readonly storage: CheckpointStorage,
    readonly options: PluginDistributionOptions,
  ) {
    this.cacheDir = options.cacheDir || processPluginCache();
  }

  /** Removes this process's own cache folder (connector-jar-storage-path empty). */
  close(): void {
    if (!this.cacheDir) rmSync(this.cacheDir, { recursive: true, force: true });
  }

  /** The store, or undefined when jar-storage is off or the checkpoint storage keeps no objects. */
  store(): Promise<PluginStore | undefined> {
    this.storeOnce ??= (async () => {
      if (!this.options.enable || !this.storage.pluginBlobs) return undefined;
      const { PluginStore } = await import('@tideway/plugins/store');
      return new PluginStore(this.storage.pluginBlobs());
    })();
    return this.storeOnce;
  }

  /** The store, or a refusal naming the setting that turned it off. */
  async requireStore(what: string): Promise<PluginStore> {
    const store = await this.store();
    if (store) return store;
    throw new ConfigError(
      ErrorCode.ENGINE_CONFIG,
      this.options.enable
        ? `${what}: this coordinator's checkpoint storage (${this.storage.description}) keeps no plugin store`
        : `${what}: seatunnel.engine.jar-storage.enable is false on this coordinator, so the cluster keeps no plugin store`,
    );
  }

  /**
   * Resolves the plugins of a job that are not built-in: a package of this coordinator's plugin
   * folders is stored first (once by its hash); then the package the job ran before (a take-over,
   * a restore), or else the one installed last, is unpacked here and named for the workers.
   * A plugin no package provides is left to the planner's unknown-plugin sentence. `jobIds`: the
   * job, and the job it restores from.
   */
  async resolve(blocks: ReadonlyArray<{ type: PluginType; name: string }>, jobIds: readonly string[]): Promise<JobPackages> {
    const wanted = blocks.filter((b) => !isBuiltin(b.type, b.name));
    if (wanted.length === 0) return { refs: [], dirs: [] };
    const store = await this.store();
    if (!store) return { refs: [], dirs: [] };
    const { folderSignature, packPackageFolder, unpackVerified, newestProviding } = await import('@tideway/plugins/store');
    const provides = (pkg: { plugins: ReadonlyArray<{ name: string; kind: PluginType }> }, b: { type: PluginType; name: string }) =>
      pkg.plugins.some((p) => p.kind === b.type && p.name.toLowerCase() === b.name.toLowerCase());
    for (const pkg of externalPluginPackages()) {
      if (!wanted.some((b) => provides(pkg, b))) continue;
      // Packing reads, tars and gzips the whole folder: done again only when the folder changed
      // or its stored package is gone (expired).
      const signature = folderSignature(pkg.dir);
      const known = this.storedFolders.get(pkg.dir);
      if (known?.signature === signature && (await store.entry(known.hash))) continue;
      const packed = await packPackageFolder(pkg.dir);
      await store.put(packed);
      this.storedFolders.set(pkg.dir, { signature, hash: packed.hash });
    }
    const entries = await store.list();
    const chosen = new Map<string, StoredPackage>();
    for (const b of wanted) {
      const ran = entries
        .filter((e) => provides(e, b) && jobIds.some((id) => e.jobs.includes(id)))
        .sort((x, y) => y.lastUsedAt - x.lastUsedAt)[0];
      const e = ran ?? newestProviding(entries, b.type, b.name);
      if (e) chosen.set(e.hash, e);
    }
    const refs: PackageRef[] = [];
    const dirs: string[] = [];
    for (const e of chosen.values()) {
      const ref = { name: e.name, version: e.version, hash: e.hash };
      dirs.push(await unpackVerified(await store.archive(ref), ref, this.cacheDir));
      refs.push(ref);
      this.loaded.set(e.hash, ref);
    }
    const jobId = jobIds[0];
    if (refs.length > 0)
      log.info({ jobId, packages: refs.map((r) => `${r.name}@${r.version} ${r.hash.slice(0, 12)}`) }, 'plugin packages of the job');
    return { refs, dirs };
  }

  /**
   * Stores an archive `tideway plugins install` packed: unpacked and checked here as a plugin
   * folder's package is (declaration, API range, entry module, built-in names, native addons),
   * then stored by the sha256 of the bytes as given.
   */
  async install(archive: Uint8Array, source: string): Promise<StoredPackage> {
    const store = await this.requireStore(`tideway plugins install ${source}`);
    const { unpackArchive, checkNativeDeclared, sha256, readPluginPackage } = await import('@tideway/plugins/store');
    const temp = mkdtempSync(join(tmpdir(), 'tideway-install-'));
    // Refusals name what the user gave, not the folder it was checked in here.
    const named = (err: unknown): unknown =>
      err instanceof ConfigError ? new ConfigError(err.code, err.message.replaceAll(join(temp, 'package'), source)) : err;
    try {
      const dir = join(temp, 'package');
      await unpackArchive(archive, dir, source);
      const pkg = readPluginPackage(dir, { builtin: false, fromSource: false });
      if (!pkg) throw new ConfigError(ErrorCode.PLUGIN_PACKAGE, `plugin package ${source}: its package.json declares no plugins`);
      checkNotBuiltin(pkg);
      checkNativeDeclared(pkg, source);
      // A module that does not load, or lacks its factories, is refused now rather than at a job's submit.
      await loadPluginsFor(
        pkg.plugins.map((p) => ({ type: p.kind, name: p.name })),
        [dir],
      );
      const hash = sha256(archive);
      const stored = await store.put({ pkg, bytes: Buffer.from(archive), hash });
      log.info({ package: `${stored.name}@${stored.version}`, hash }, 'plugin package installed');
      return stored;
    } catch (err) {
      throw named(err);
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
  }

  /** Notes that a job (submitted, or taken over) runs these packages: for `plugins describe` and the expiry. */
  async markUsed(refs: readonly PackageRef[], jobId: string): Promise<void> {
    const store = refs.length > 0 ? await this.store() : undefined;
    for (const r of refs) await store?.markUsed(r.hash, jobId);
  }

  /** The stored package `name[@version]` names (the one a job would get without a version). */
  async find(name: string, version: string): Promise<StoredPackage> {
    const store = await this.requireStore(`tideway plugins describe ${name}`);
    const same = (await store.list()).filter((e) => e.name === name || e.plugins.some((p) => p.name.toLowerCase() === name.toLowerCase()));
    const hit = (version ? same.filter((e) => e.version === version) : same).sort((a, b) => b.installedAt - a.installedAt)[0];
    if (!hit)
      throw new TidewayError(
        ErrorCode.NOT_FOUND,
        same.length > 0
          ? `plugin package ${name}@${version} is not in the plugin store; it holds ${same.map((e) => `${e.name}@${e.version}`).join(', ')}`
          : `no plugin package ${name} (or package providing a plugin of that name) is in the plugin store (${store.description})`,
      );
    return hit;
  }

  /**
   * Removes the stored package `name@version` (tideway plugins remove), refused while a running
   * job uses it: `usedBy` gives the running jobs using a package, by its hash. A package still in
   * a coordinator's plugin folders is stored again by the next job that names its plugins.
   */
  async remove(name: string, version: string, usedBy: (hash: string) => readonly string[]): Promise<StoredPackage> {
    const what = `tideway plugins remove ${name}@${version}`;
    const store = await this.requireStore(what);
    const hit = (await store.list()).find((e) => e.name === name && e.version === version);
    if (!hit) {
      const same = (await store.list()).filter((e) => e.name === name);
      throw new TidewayError(
        ErrorCode.NOT_FOUND,
        same.length > 0
          ? `${what}: the plugin store holds ${same.map((e) => `${e.name}@${e.version}`).join(', ')}, not ${version}`
          : `${what}: no plugin package ${name} is in the plugin store (${store.description})`,
      );
    }
    const jobs = usedBy(hit.hash);
    if (jobs.length > 0)
      // not a usage error (exit code 1): the same command succeeds once the jobs end
      throw new TidewayError(
        ErrorCode.ILLEGAL_TRANSITION,
        `${what}: running job${jobs.length > 1 ? 's' : ''} ${jobs.join(', ')} use${jobs.length > 1 ? '' : 's'} it; cancel ${jobs.length > 1 ? 'them' : 'it'} or wait until ${jobs.length > 1 ? 'they end' : 'it ends'}`,
      );
    await store.remove(hit.hash);
    this.loaded.delete(hit.hash);
    for (const [dir, stored] of this.storedFolders) if (stored.hash === hit.hash) this.storedFolders.delete(dir);
    log.info({ package: `${hit.name}@${hit.version}`, hash: hit.hash }, 'plugin package removed from the store');
    return hit;
  }

  /** The leader's tick: removes the packages no job named for connector-jar-expiry-time. */
  async cleanup(inUse: ReadonlySet<string>, now = Date.now()): Promise<void> {
    if (now - this.lastCleanup < this.options.cleanupIntervalMs) return;
    this.lastCleanup = now;
    const store = await this.store();
    if (!store) return;
    const gone = await store.expire(this.options.expiryMs, inUse, now);
    for (const e of gone) log.info({ package: `${e.name}@${e.version}`, hash: e.hash }, 'expired plugin package removed from the store');
  }
}
