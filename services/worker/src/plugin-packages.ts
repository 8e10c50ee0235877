/**
 * A worker's stored plugin packages (docs/decisions/0085): before a task group that runs one
 * deploys, the worker fetches the archive from a coordinator (FetchPluginPackage, in chunks),
 * checks its sha256, refuses a native addon not built for this process, and unpacks it into its
 * cache folder keyed by the hash; the task-group thread loads the plugin from there.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { CoordinatorServiceClient, PluginPackageChunk, PluginPackageRef } from '@tideway/contracts';
import { logger } from '@tideway/common';
import { fromServiceError, type LeaderCaller } from '@tideway/rpc';
import type { JobPluginPackage } from '@tideway/runtime';

const log = logger('worker');
const FETCH_DEADLINE_MS = 120_000;

export class WorkerPluginPackages {
  /** The packages this worker unpacked and loaded from, by hash. */
  readonly loaded = new Map<string, PluginPackageRef>();
  private readonly fetching = new Map<string, Promise<string>>();

  /**
   * @param cacheDir where packages are unpacked by hash (connector-jar-storage-path)
   * @param own whether the folder is this process's alone (removed at stop)
   */
  constructor(
    private readonly leader: LeaderCaller<CoordinatorServiceClient>,
    readonly cacheDir: string,
    private readonly own: boolean,
  ) {}

  /** Fetches (once per hash) every package a task group runs and sets where each was unpacked. */
  async ensure(packages: JobPluginPackage[]): Promise<void> {
    for (const p of packages) {
      let pending = this.fetching.get(p.hash);
      if (!pending) {
        pending = this.fetch(p);
        this.fetching.set(p.hash, pending);
        pending.catch(() => this.fetching.delete(p.hash));
      }
      p.dir = await pending;
      this.loaded.set(p.hash, { name: p.name, version: p.version, hash: p.hash });
    }
  }

  private async fetch(p: JobPluginPackage): Promise<string> {
    const dest = join(this.cacheDir, p.hash);
    // Unpacked by this process before, or by another one sharing connector-jar-storage-path: verified then.
    if (existsSync(join(dest, 'package.json'))) return dest;
    const ref = { name: p.name, version: p.version, hash: p.hash };
    const started = Date.now();
    const bytes = await this.leader.call(
      (client) =>
        new Promise<Buffer>((resolve, reject) => {
          const chunks: Buffer[] = [];
          const stream = client.fetchPluginPackage({ package: ref }, { deadline: Date.now() + FETCH_DEADLINE_MS });
          stream.on('data', (c: PluginPackageChunk) => chunks.push(Buffer.from(c.data)));
          stream.on('error', (err) => reject(fromServiceError(err)));
          stream.on('end', () => resolve(Buffer.concat(chunks)));
        }),
      FETCH_DEADLINE_MS,
    );
    const { unpackVerified } = await import('@tideway/plugins/store');
    const dir = await unpackVerified(bytes, ref, this.cacheDir);
    log.info({ package: `${p.name}@${p.version}`, hash: p.hash, bytes: bytes.length, ms: Date.now() - started }, 'plugin package fetched');
    return dir;
  }

  /** Removes this process's own cache folder. */
  close(): void {
    if (this.own) rmSync(this.cacheDir, { recursive: true, force: true });
  }
}
