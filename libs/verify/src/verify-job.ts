import type { CheckpointStorage } from '@tideway/checkpoint';
import { ConfigError, ErrorCode, textOf } from '@tideway/common';
import { hasChangePositions } from '@tideway/connector-cdc-common';
import type { ComparedTable, JdbcConnection } from '@tideway/connector-jdbc';
import type { PlannedJob } from '@tideway/planner';
import type { SideFacts } from './canonical.js';
import { waitForCatchUp, type CatchUp } from './catch-up.js';
import { isMariaDb } from './column-info.js';
import { compareTable, type TableResult } from './compare-table.js';
import { comparedPipelines } from './job-tables.js';
import { comparedThroughKafka, waitForTopics } from './through-kafka.js';

/** What `tideway verify` was asked to do. */
export interface VerifyOptions {
  readonly job: PlannedJob;
  /** The job whose checkpoints show how far a CDC sink has come (`--job-id`). */
  readonly jobId?: string;
  readonly storage?: CheckpointStorage;
  /** Wait for a CDC sink to catch up first (false: compare as things are). */
  readonly wait: boolean;
  readonly timeoutMs: number;
  /** Keys listed per kind of difference and table. */
  readonly maxKeys: number;
  /** Sessions per side, each running a slice of a table's checksums at once (default 2). */
  readonly parallelism?: number;
  /**
   * `--then`: a second job that reads the topics the job's Kafka sinks write into Jdbc sinks; the
   * job's source tables are compared with those Jdbc tables (through-kafka.ts).
   */
  readonly then?: { readonly job: PlannedJob; readonly jobId?: string; readonly storage?: CheckpointStorage };
}

/** The outcome: equal when every table is. */
export interface VerifyReport {
  readonly equal: boolean;
  readonly catchUp: ReadonlyArray<CatchUp & { readonly pipelineId: number }>;
  /** `--then`: where the second job's checkpoints passed the ends of the topics it reads. */
  readonly throughKafka?: ReadonlyArray<{ readonly pipelineId: number; readonly topics: readonly string[]; readonly checkpointId: number }>;
  readonly tables: readonly TableResult[];
}

interface Session {
  readonly conn: JdbcConnection;
  /** More sessions on the same server, set up alike (parallelism - 1 of them). */
  readonly more: readonly JdbcConnection[];
  readonly facts: SideFacts;
}

/** A verify session's settings: the same on every session of a side. */
async function prepare(conn: JdbcConnection): Promise<void> {
  // Point-in-time columns (MySQL TIMESTAMP) are compared in UTC.
  if (conn.dialect === 'mysql') await conn.execute("SET time_zone = '+00:00'");
  else {
    // Dates print as YYYY-MM-DD (canonicalSql); the range checksums group ~1,000 rows per
    // range, which PostgreSQL cannot estimate and would sort the whole table for: hash them.
    await conn.execute("SET DateStyle = 'ISO, YMD'");
    await conn.execute('SET enable_sort = off');
  }
}

async function session(open: () => Promise<JdbcConnection>, parallelism: number, conns: JdbcConnection[]): Promise<Session> {
  // Opened at once; each is in `conns` as soon as it is open, so that every one opened is closed.
  const opening = Array.from({ length: parallelism }, async () => {
    const c = await open();
    conns.push(c);
    await prepare(c);
    return c;
  });
  const settled = await Promise.allSettled(opening);
  const failed = settled.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  const opened = settled.map((r) => (r as PromiseFulfilledResult<JdbcConnection>).value);
  const conn = opened[0];
  const utf8 = conn.dialect === 'mysql' || textOf((await conn.execute('SHOW server_encoding')).rows[0]?.[0] ?? '').toUpperCase() === 'UTF8';
  return { conn, more: opened.slice(1), facts: { dialect: conn.dialect, truncates: await isMariaDb(conn), utf8 } };
}

/**
 * Compares every source table of a job with the sink table it is written to. For a CDC
 * source it first waits (unless told not to) until the job's checkpoints show the sink past
 * the source log position recorded at the start.
 */
export async function verifyJob(opts: VerifyOptions): Promise<VerifyReport> {
  const through = opts.then ? comparedThroughKafka(opts.job, opts.then.job) : undefined;
  const pipelines = through?.pipelines ?? comparedPipelines(opts.job);
  const catchUp: Array<CatchUp & { pipelineId: number }> = [];
  for (const p of pipelines) {
    if (!hasChangePositions(p.source) || !opts.wait) continue;
    if (opts.jobId === undefined || opts.storage === undefined) {
      throw new ConfigError(
        ErrorCode.CONFIG_MISSING_OPTION,
        "verify of a CDC job waits until its sink caught up, seen in the job's checkpoints: pass --job-id (and --engine-config when its checkpoints are not in the default storage), or --no-wait to compare right away",
        {
          place: { option: '--job-id' },
        },
      );
    }
    catchUp.push({ pipelineId: p.pipelineId, ...(await waitForCatchUp(p.source, opts.storage, opts.jobId, p.pipelineId, opts.timeoutMs)) });
  }
  const throughKafka: Array<{ pipelineId: number; topics: readonly string[]; checkpointId: number }> = [];
  if (through && opts.wait) {
    const then = opts.then!;
    if (then.jobId === undefined || then.storage === undefined)
      throw new ConfigError(
        ErrorCode.CONFIG_MISSING_OPTION,
        "verify --then waits until the second job has read its topics to where they end once the first caught up, seen in its checkpoints: pass --then-job-id (and --then-engine-config when its checkpoints are not in the first job's storage), or --no-wait to compare right away",
        { place: { option: '--then-job-id' } },
      );
    for (const leg of through.legs)
      throughKafka.push({ pipelineId: leg.pipelineId, ...(await waitForTopics(leg, then.storage, then.jobId, opts.timeoutMs)) });
  }
  const conns: JdbcConnection[] = [];
  const tables: TableResult[] = [];
  const parallelism = opts.parallelism ?? 2;
  try {
    for (const p of pipelines) {
      const source = await session(() => p.source.openComparisonSession(), parallelism, conns);
      for (const s of p.sinks) {
        const sink = await session(() => s.sink.openComparisonSession(), parallelism, conns);
        for (const t of s.tables) {
          const from = p.sourceTables.find((x) => x.tableId === t.tableId);
          if (!from) continue;
          tables.push(await compareTable(pairOf(from, t, source, sink), opts.maxKeys));
        }
      }
    }
  } finally {
    for (const c of conns) await c.close().catch(() => undefined);
  }
  return { equal: tables.every((t) => t.equal), catchUp, ...(through ? { throughKafka } : {}), tables };
}

function pairOf(from: ComparedTable, to: ComparedTable, source: Session, sink: Session) {
  const columns = from.columns.map((c, i) => [c, to.columns[i] ?? c] as const);
  // The source's key; else the one the sink was told (primary_keys), in source names.
  const keyColumns =
    from.keyColumns.length > 0
      ? from.keyColumns
      : to.keyColumns.map((k) => from.columns[to.columns.indexOf(k)]).filter((k) => k !== undefined);
  return {
    tableId: from.tableId,
    source: { conn: source.conn, ref: from.ref, facts: source.facts },
    sink: { conn: sink.conn, ref: to.ref, facts: sink.facts },
    moreSource: source.more,
    moreSink: sink.more,
    columns,
    keyColumns,
  };
}
