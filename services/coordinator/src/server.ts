import { EventEmitter } from 'node:events';
import { CoordinatorServiceService, JobServiceService, TokenServiceService } from '@tideway/contracts';
import { ErrorCode, TidewayError, detach, logger } from '@tideway/common';
import type { ConfigLimits, NamespaceLimits } from '@tideway/config';
import { TidewayServer, useStoredTokens } from '@tideway/rpc';
import { MemoryStateStore, SoleLeaderElection, type LeaderElection, type StateStore, type TokenStore } from '@tideway/cluster';
import type { CheckpointStorage } from '@tideway/checkpoint';
import { coordinatorServiceHandlers } from './coordinator-service.js';
import { Dispatcher } from './dispatcher.js';
import type { DeliveryStats } from './event-delivery.js';
import type { CallLimits } from '@tideway/runtime';
import type { JobEventReporter } from './job-events.js';
import type { JobMaster } from './job-master.js';
import { JobLogCollector } from './job-logs.js';
import { jobServiceHandlers, knownJobInfo } from './job-service.js';
import { Leadership } from './leadership.js';
import { RemoteResourceManager, RemoteWorkers } from './remote-gateways.js';
import type { JobScheduleStrategy } from './scheduler.js';
import { reconcileWorkers } from './take-over.js';
import { checkAllowedPlugins } from './namespace-limits.js';
import { storedTokenEntries, tokenServiceHandlers } from './token-service.js';
import { fetchPluginPackageHandler, listLoadedPluginPackagesHandler, pluginServiceHandlers } from './plugin-service.js';
import type { PluginDistributionOptions } from './plugin-distribution.js';

const log = logger('coordinator');
/** How often the leader hands the resource manager the list of slots its jobs hold. */
const SLOT_SYNC_INTERVAL_MS = 30_000;
/** After a step-down this coordinator does not contend for the lease for this long (a follower takes it). */
const STEP_DOWN_PAUSE_MS = 10_000;

export interface CoordinatorOptions {
  host: string;
  port: number;
  /** The address others reach this coordinator at (default host:port). */
  advertisedAddress?: string;
  resourceManagerAddress: string;
  jobScheduleStrategy: JobScheduleStrategy;
  /** Ended jobs stay listed this long (history-job-expire-minutes). */
  historyExpireMs: number;
  /** Engine-level checkpoint defaults (seatunnel.engine.checkpoint). */
  checkpoint: { intervalMs: number; timeoutMs: number; minPauseMs: number; historySize?: number };
  /** Where completed checkpoints and savepoints go (local directory or S3). */
  checkpointStorage: CheckpointStorage;
  /** The coordinators' shared state (default: in memory, for a single coordinator). */
  store?: StateStore;
  /**
   * Leader election (default: this coordinator is the sole leader). `epochFloor` is the highest
   * epoch others refused this coordinator with: the next claim must be higher.
   */
  election?: (address: string, store: StateStore, epochFloor: () => number) => LeaderElection;
  /** How often running jobs' counters are written to the store (job-metrics-backup-interval). */
  metricsBackupIntervalMs?: number;
  /** What the jobs of each namespace may touch (tideway.auth.namespaces), checked at submit and plan. */
  namespaces?: Readonly<Record<string, NamespaceLimits>>;
  /**
   * Where TokenService keeps the tokens it adds (the Redis state store); without one it refuses
   * to add any (a token in memory would be lost at the restart).
   */
  tokenStore?: TokenStore;
  /** Size and nesting limits of submitted job configs (tideway.limits; default their defaults). */
  configLimits?: ConfigLimits;
  /** Where job events are pushed (event-report-http, tideway.events.webhooks); none when unset. */
  events?: JobEventReporter;
  /** Time limits of plugin packages' coordinator-side calls (tideway.plugin-call-timeout); absent: none. */
  pluginCallTimeout?: CallLimits;
  /**
   * Milliseconds a pipeline without checkpoints may run on a draining worker before it is moved
   * by a restart (tideway.drain.batch-timeout; default 10 minutes).
   */
  drainBatchTimeoutMs?: number;
  /** seatunnel.engine.jar-storage: plugin packages stored by hash and shipped to the workers (default: on, a cache folder of this process). */
  pluginStorage?: PluginDistributionOptions;
}

/**
 * The coordinator process: it listens (JobService for clients, CoordinatorService for workers
 * and the resource manager, TokenService), contends for leadership, takes the recorded jobs
 * over when elected, and runs a 1-second ticker. Every coordinator serves; only the leader
 * acts (a follower answers UNAVAILABLE with the leader's address). The jobs of a leadership
 * belong to its Dispatcher, which records every job in the state store, so that a new leader
 * can take every job over.
 */
export class CoordinatorServer {
  private readonly server = new TidewayServer();
  readonly dispatcher: Dispatcher;
  /** 'step-down' when this coordinator stops leading (open watches end with a redirect). */
  readonly leadership = new EventEmitter();
  readonly store: StateStore;
  readonly fence: Leadership;
  readonly rm: RemoteResourceManager;
  readonly workers: RemoteWorkers;
  /** Collects a job's log lines from this and every other process (GetJobLogs). */
  readonly logs: JobLogCollector;
  private election?: LeaderElection;
  private ticker?: NodeJS.Timeout;
  private lastMetricsBackup = 0;
  private lastSlotSync = 0;
  /** The epoch this coordinator took the lease with; 0 while following. */
  private leadingEpoch = 0;
  /** The take-over in progress: client calls wait for it. */
  private takingOver?: Promise<void>;
  private stopped = false;
  /** Workers the resource manager reported lost since the start (a Prometheus counter). */
  workersLost = 0;
  /** A follower's view at its last tick: whether the recorded leader announced itself within its ttl. */
  private leaderAlive = false;
  port = 0;

  constructor(private readonly options: CoordinatorOptions) {
    const later = checkAllowedPlugins(options.namespaces ?? {}, options.pluginStorage?.enable ?? true);
    if (later.length > 0)
      log.warn(
        { plugins: later },
        'allowed plugins that no plugin package of this coordinator provides: jobs may use them once installed (tideway plugins install)',
      );
    this.store = options.store ?? new MemoryStateStore();
    this.fence = new Leadership(
      '',
      () => this.election?.leading ?? false,
      (reason) => detach(this.stepDown(reason, true), 'stepping down'),
    );
    this.rm = new RemoteResourceManager(options.resourceManagerAddress, this.fence);
    // A dropped connection to a worker that runs task groups is checked at once: a killed worker's
    // socket closes at once, long before its heartbeats are missed or a checkpoint call fails.
    // (Workers that run nothing, as the local mode's at its end, are left to their heartbeats.)
    this.workers = new RemoteWorkers(
      this.fence,
      (address) => this.suspectWorker(address),
      (address) => {
        if (this.dispatcher.runsOn(address)) this.suspectWorker(address);
      },
    );
    this.dispatcher = new Dispatcher(options, { store: this.store, fence: this.fence, rm: this.rm, workers: this.workers });
    this.logs = new JobLogCollector({
      dispatcher: this.dispatcher,
      store: this.store,
      resources: this.rm,
      address: () => this.address,
      jobInfo: (jobId) => knownJobInfo({ dispatcher: this.dispatcher, store: this.store }, jobId),
    });
  }

  get address(): string {
    return this.options.advertisedAddress ?? `${this.options.host}:${this.port}`;
  }

  get leading(): boolean {
    return this.fence.leading;
  }

  get epoch(): number {
    return this.fence.epoch;
  }

  /**
   * Listens, then contends for leadership. With `waitForLeadership` (a sole coordinator) it
   * resolves once this coordinator leads and has taken the recorded jobs over.
   */
  async start(opts: { waitForLeadership?: boolean } = {}): Promise<string> {
    await this.store.open();
    const jobService = jobServiceHandlers({
      dispatcher: this.dispatcher,
      store: this.store,
      resources: this.rm,
      logs: this.logs,
      leadership: this.leadership,
      ready: () => this.ready(),
      stepDown: () => this.handOver(),
      whereabouts: () => ({ address: this.address, epoch: this.epoch, knownLeader: this.fence.knownLeader }),
    });
    const pluginService = pluginServiceHandlers(
      { dispatcher: this.dispatcher, resources: this.rm, coordinators: () => this.store.coordinators(), address: () => this.address },
      () => this.ready(),
    );
    this.server.add('tideway.v1.JobService', JobServiceService, { ...jobService, ...pluginService });
    this.server.add('tideway.v1.TokenService', TokenServiceService, tokenServiceHandlers(this.options.tokenStore));
    const tokens = this.options.tokenStore;
    // This process (its JobService, TokenService and REST API) accepts the state store's tokens too.
    if (tokens) useStoredTokens(() => storedTokenEntries(tokens));
    const coordinatorService = coordinatorServiceHandlers({
      fence: this.fence,
      dispatcher: this.dispatcher,
      workers: this.workers,
      takingOver: () => this.takingOver !== undefined,
      countWorkerLost: () => this.workersLost++,
    });
    this.server.add('tideway.v1.CoordinatorService', CoordinatorServiceService, {
      ...coordinatorService,
      fetchPluginPackage: fetchPluginPackageHandler(this.dispatcher),
      listLoadedPluginPackages: listLoadedPluginPackagesHandler(this.dispatcher, () => this.address),
    });
    this.port = await this.server.listen(this.options.host, this.options.port);
    this.fence.address = this.address;
    let elected!: () => void;
    const firstLead = new Promise<void>((r) => (elected = r));
    this.contend(async (epoch) => {
      await this.lead(epoch);
      elected();
    });
    this.ticker = setInterval(() => detach(this.tick(), 'the coordinator tick'), 1000);
    this.ticker.unref();
    detach(this.tick(), 'the coordinator tick');
    log.info({ address: this.address, election: this.election?.description }, 'coordinator listening');
    if (opts.waitForLeadership) await firstLead;
    return this.address;
  }

  /**
   * Stops the process. A leader hands over: its jobs stop being acted on (no scheduling, no new
   * checkpoints), then the election's stop releases the lease, so a follower takes over at its
   * next try instead of when the lease would have expired; task groups run on meanwhile.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.ticker) clearInterval(this.ticker);
    if (this.fence.leading) log.info({ address: this.address, epoch: this.epoch }, 'stopping: handing the leadership over');
    this.dispatcher.stop();
    await this.options.events?.close();
    await this.election?.stop();
    this.dispatcher.plugins.close();
    await this.options.checkpointStorage.close();
    this.rm.close();
    this.workers.close();
    this.logs.close();
    await this.server.close(500);
    await this.store.close();
  }

  /**
   * tideway cluster step-down: this leader stops its work, releases the lease and does not
   * contend for a while, so a follower leads at once (a rolling upgrade restarts the leader
   * last). Refused without an election that can hand over, or with no other coordinator alive.
   */
  async handOver(): Promise<{ address: string; epoch: number }> {
    const election = this.election;
    if (!election?.resign)
      throw new TidewayError(
        ErrorCode.ILLEGAL_TRANSITION,
        `coordinator ${this.address} cannot hand over: it runs as a ${election?.description ?? 'coordinator without an election'}, and a step-down needs coordinators sharing a Redis state store (docs/cluster.md, "High availability")`,
      );
    const others = (await this.store.coordinators()).filter((c) => c.address !== this.address);
    if (others.length === 0)
      throw new TidewayError(
        ErrorCode.ILLEGAL_TRANSITION,
        `no other coordinator announced itself lately: coordinator ${this.address} keeps leading (start a follower first)`,
      );
    const epoch = this.epoch;
    log.info({ address: this.address, epoch, followers: others.map((c) => c.address) }, 'stepping down: handing the leadership over');
    await election.resign(STEP_DOWN_PAUSE_MS);
    return { address: this.address, epoch };
  }

  /** Waits for a take-over in progress; throws NotLeader unless this coordinator leads. */
  async ready(): Promise<void> {
    if (this.takingOver) await this.takingOver.catch(() => undefined);
    this.fence.check();
  }

  /** This coordinator now holds the lease with `epoch`: it takes every recorded job over. */
  private async lead(epoch: number): Promise<void> {
    this.fence.begin(epoch);
    this.leadingEpoch = epoch;
    this.dispatcher.beginLeadership();
    log.info({ address: this.address, epoch }, 'leading the cluster');
    const run = this.takeOver(epoch);
    this.takingOver = run;
    try {
      await run;
    } catch (err) {
      log.error({ err, epoch }, 'take-over failed');
    } finally {
      if (this.takingOver === run) this.takingOver = undefined;
    }
  }

  private async takeOver(epoch: number): Promise<void> {
    const stored = (await this.store.activeJobs()).sort((a, b) => a.info.submitTimeMs - b.info.submitTimeMs);
    const snapshot = await reconcileWorkers(this.fence, this.rm, this.workers);
    for (const job of stored) {
      this.fence.check();
      await this.dispatcher.adopt(job, epoch, snapshot.slots);
      // Planning a job again is mostly CPU: without a turn of the event loop between jobs, a
      // take-over of hundreds of queued jobs starves the lease's extension timer, the lease
      // expires mid-take-over, and the next leader starts the same long take-over (seen in the
      // soak with 1500 pending jobs on a loaded machine).
      await new Promise<void>((r) => setImmediate(r));
    }
    await this.syncSlots();
    this.lastSlotSync = Date.now();
    if (stored.length > 0) log.info({ epoch, jobs: stored.length }, 'take-over done');
  }

  /** Slots granted to jobs this leader does not run (they ended, or were never recorded) go back. */
  private async syncSlots(): Promise<void> {
    await this.rm
      .syncSlots(this.dispatcher.heldSlots())
      .catch((err: unknown) => log.debug({ err: (err as Error).message }, 'could not sync the slot table'));
  }

  /** The leadership is gone: stop acting at once and forget the jobs (the next leader resumes them). */
  private async stepDown(reason: string, resign: boolean): Promise<void> {
    const wasLeading = this.leadingEpoch > 0;
    this.leadingEpoch = 0;
    this.fence.end();
    this.dispatcher.forgetAll();
    this.leadership.emit('step-down');
    if (wasLeading && !this.stopped) log.warn({ address: this.address, reason }, 'following: this coordinator stopped leading');
    if (resign && !this.stopped && this.election) {
      // Our epoch is stale although the lease may still look held: give it up and contend
      // again, with a new election (a stopped one has closed its connections).
      await this.election.stop();
      if (!this.stopped) this.contend((epoch) => this.lead(epoch));
    }
  }

  /** Starts contending for leadership with a new election. */
  private contend(onElected: (epoch: number) => Promise<void>): void {
    const make = this.options.election ?? ((address, store) => new SoleLeaderElection(store, address));
    this.election = make(this.address, this.store, () => this.fence.highestSeenEpoch);
    this.election.start({ onElected, onLost: (reason) => detach(this.stepDown(reason, false), 'stepping down') });
  }

  /** Workers suspected dead lately, by address (one probe per address every few seconds). */
  private readonly suspected = new Map<string, number>();

  /**
   * A worker refused a connection: the resource manager probes it now (instead of waiting for
   * missed heartbeats) and, when it is gone, declares it lost, which fails its pipelines over.
   */
  private suspectWorker(address: string): void {
    const now = Date.now();
    if ((this.suspected.get(address) ?? 0) > now - 2000 || !this.fence.leading) return;
    this.suspected.set(address, now);
    this.rm.probe(address).then(
      (r) => r.lost && log.warn({ worker: address, reason: r.reason }, 'a worker refusing connections was declared lost'),
      () => undefined,
    );
  }

  /** Samples rates, forgets ended jobs, backs metrics up, and says this coordinator is alive. */
  private async tick(): Promise<void> {
    const now = Date.now();
    await this.store.announceCoordinator(this.address, 5000).catch(() => undefined);
    if (!this.fence.leading) {
      const leader = await this.store.leader().catch(() => undefined);
      this.fence.knownLeader = leader?.address ?? '';
      const alive = leader ? await this.store.coordinators().catch(() => []) : [];
      this.leaderAlive = !!leader && alive.some((c) => c.address === leader.address);
      return;
    }
    const backup = now - this.lastMetricsBackup >= (this.options.metricsBackupIntervalMs ?? 10_000);
    if (backup) this.lastMetricsBackup = now;
    if (now - this.lastSlotSync >= SLOT_SYNC_INTERVAL_MS && !this.takingOver) {
      this.lastSlotSync = now;
      detach(this.syncSlots(), 'syncing the slot table');
    }
    this.dispatcher.tick(now, backup);
    if (!this.takingOver) detach(this.dispatcher.cleanupPlugins(now), 'removing expired plugin packages');
    if (!this.takingOver) await this.moveOffDrainingWorkers();
  }

  /** A look for draining workers is under way (a slow resource manager must not pile ticks up). */
  private lookingForDrains = false;

  /** Pipelines with task groups on draining workers move off them (Dispatcher.moveOff). */
  private async moveOffDrainingWorkers(): Promise<void> {
    if (this.lookingForDrains) return;
    this.lookingForDrains = true;
    try {
      const { workers } = await this.rm.listWorkers().catch(() => ({ workers: [] }));
      if (!this.fence.leading) return;
      for (const w of workers) if (w.draining) this.dispatcher.moveOff(w.address, this.options.drainBatchTimeoutMs ?? 600_000);
    } finally {
      this.lookingForDrains = false;
    }
  }

  /** Every job known here: running ones, and ended ones for a while. */
  jobMasters(): Iterable<JobMaster> {
    return this.dispatcher.jobs.values();
  }

  pendingCount(): number {
    return this.dispatcher.pendingCount();
  }

  /**
   * The readiness probe's answer: ready while this coordinator leads (its take-over done), or
   * follows a leader that announced itself within its ttl; not ready while it follows without a
   * leader (an election under way, the state store unreachable) or stops.
   */
  readiness(): { ready: boolean; reason: string } {
    if (this.stopped) return { ready: false, reason: 'the coordinator is stopping' };
    if (this.fence.leading)
      return this.takingOver
        ? { ready: false, reason: `leading (epoch ${this.epoch}), taking the recorded jobs over` }
        : { ready: true, reason: `leading (epoch ${this.epoch})` };
    if (this.leaderAlive) return { ready: true, reason: `following the leader at ${this.fence.knownLeader}` };
    return { ready: false, reason: 'following, and no leader answers (an election is under way, or the state store is unreachable)' };
  }

  /** Each job event receiver's deliveries (tideway_events_* metrics). */
  eventDeliveries(): DeliveryStats[] {
    return this.options.events?.stats() ?? [];
  }
}
