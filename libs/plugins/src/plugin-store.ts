/**
 * The cluster's plugin packages, stored once by content hash in checkpoint storage (a local
 * folder or S3, so HA coordinators share them): `packages/<sha256>.tgz` holds the archive and
 * `index/<sha256>.json` what it is (docs/decisions/0085-plugin-distribution.md).
 */
import type { PluginType } from '@tideway/api';
import { ConfigError, ErrorCode } from '@tideway/common';
import { sha256, type PackedPackage } from './package-archive.js';

/** The few object operations the store needs (checkpoint storage's BlobStore). */
export interface PluginBlobs {
  readonly description: string;
  put(key: string, bytes: Uint8Array): Promise<void>;
  get(key: string): Promise<Uint8Array | undefined>;
  list(prefix: string): Promise<string[]>;
  delete(keys: readonly string[]): Promise<void>;
}

/** What the store knows of one package. */
export interface StoredPackage {
  readonly name: string;
  readonly version: string;
  /** The sha256 of its archive (hex). */
  readonly hash: string;
  /** The plugin API range it was built for. */
  readonly api: string;
  readonly plugins: ReadonlyArray<{ readonly name: string; readonly kind: PluginType }>;
  readonly size: number;
  /** When it was stored (ms since epoch). */
  readonly installedAt: number;
  /** When a job last named one of its plugins (ms since epoch; 0: never). */
  readonly lastUsedAt: number;
  /** The jobs that named one of its plugins, newest last (at most 20). */
  readonly jobs: readonly string[];
}

/** A package a job runs: what a task deployment carries so that a worker can fetch and verify it. */
export interface PackageRef {
  readonly name: string;
  readonly version: string;
  readonly hash: string;
}

const MAX_JOBS = 20;
const indexKey = (hash: string) => `index/${hash}.json`;
const archiveKey = (hash: string) => `packages/${hash}.tgz`;

export class PluginStore {
  constructor(private readonly blobs: PluginBlobs) {}

  get description(): string {
    return this.blobs.description;
  }

  /** Stores a packed package (once: a hash already stored keeps its entry). */
  async put(packed: PackedPackage, now = Date.now()): Promise<StoredPackage> {
    const known = await this.entry(packed.hash);
    if (known) return known;
    await this.blobs.put(archiveKey(packed.hash), packed.bytes);
    const entry: StoredPackage = {
      name: packed.pkg.name,
      version: packed.pkg.version,
      hash: packed.hash,
      api: packed.pkg.api,
      plugins: packed.pkg.plugins.map((p) => ({ name: p.name, kind: p.kind })),
      size: packed.bytes.length,
      installedAt: now,
      lastUsedAt: 0,
      jobs: [],
    };
    await this.writeEntry(entry);
    return entry;
  }

  async entry(hash: string): Promise<StoredPackage | undefined> {
    const bytes = await this.blobs.get(indexKey(hash));
    return bytes ? (JSON.parse(Buffer.from(bytes).toString('utf8')) as StoredPackage) : undefined;
  }

  private writeEntry(entry: StoredPackage): Promise<void> {
    return this.blobs.put(indexKey(entry.hash), Buffer.from(JSON.stringify(entry, null, 2)));
  }

  /** Every stored package, by name then installation time. */
  async list(): Promise<StoredPackage[]> {
    const keys = (await this.blobs.list('index/')).filter((k) => k.endsWith('.json'));
    const entries = await Promise.all(keys.map((k) => this.entry(k.slice(k.lastIndexOf('/') + 1, -'.json'.length))));
    return entries
      .filter((e): e is StoredPackage => e !== undefined)
      .sort((a, b) => a.name.localeCompare(b.name) || a.installedAt - b.installedAt);
  }

  /**
   * The archive's bytes, checked against its hash: a stored archive changed after it was stored
   * is refused in one sentence naming the package.
   */
  async archive(ref: PackageRef): Promise<Uint8Array> {
    const bytes = await this.blobs.get(archiveKey(ref.hash));
    if (!bytes)
      throw new ConfigError(
        ErrorCode.PLUGIN_PACKAGE,
        `plugin package ${ref.name}@${ref.version}: its archive ${ref.hash.slice(0, 12)}… is not in the plugin store (${this.blobs.description}); install it again`,
      );
    const actual = sha256(bytes);
    if (actual !== ref.hash)
      throw new ConfigError(
        ErrorCode.PLUGIN_PACKAGE,
        `plugin package ${ref.name}@${ref.version}: the stored archive has sha256 ${actual.slice(0, 12)}…, not the ${ref.hash.slice(0, 12)}… it was stored as (it was changed after it was stored); install it again`,
      );
    return bytes;
  }

  /** Notes that a job runs the package (for `plugins describe` and the expiry). */
  async markUsed(hash: string, jobId: string, now = Date.now()): Promise<void> {
    const e = await this.entry(hash);
    if (!e) return;
    const jobs = [...e.jobs.filter((j) => j !== jobId), jobId].slice(-MAX_JOBS);
    await this.writeEntry({ ...e, lastUsedAt: now, jobs });
  }

  /** Removes one package: its index entry first (no job is given it from then on), then its archive. */
  async remove(hash: string): Promise<void> {
    await this.blobs.delete([indexKey(hash)]);
    await this.blobs.delete([archiveKey(hash)]);
  }

  /**
   * Removes the packages that no job named for `expiryMs` (counted from their installation when
   * none ever did), except those `inUse` (the running jobs'). Returns what it removed.
   */
  async expire(expiryMs: number, inUse: ReadonlySet<string>, now = Date.now()): Promise<StoredPackage[]> {
    const gone = (await this.list()).filter((e) => !inUse.has(e.hash) && now - Math.max(e.installedAt, e.lastUsedAt) > expiryMs);
    for (const e of gone) await this.blobs.delete([indexKey(e.hash), archiveKey(e.hash)]);
    return gone;
  }
}

/**
 * The stored package a job gets for a plugin: among those providing it, the one installed last
 * (a running job keeps the one it was given, so an install never changes a running job).
 */
export function newestProviding(entries: readonly StoredPackage[], kind: PluginType, name: string): StoredPackage | undefined {
  const lower = name.toLowerCase();
  return entries
    .filter((e) => e.plugins.some((p) => p.kind === kind && p.name.toLowerCase() === lower))
    .sort((a, b) => b.installedAt - a.installedAt)[0];
}
