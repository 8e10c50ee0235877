import type { CheckpointStorage } from '@tideway/checkpoint';
import { ConfigError, ErrorCode, TidewayError } from '@tideway/common';
import type { ComparableTables, ComparedTable } from '@tideway/connector-jdbc';
import type { PlannedJob } from '@tideway/planner';
import { createSink } from '@tideway/plugins/lazy';
import { comparedSinks, comparedSource, refuseTransforms, type ComparedPipeline } from './job-tables.js';

/**
 * `tideway verify --then`: a pipeline that spans two jobs through Kafka (a CDC job writing its
 * tables to topics, a second job reading the topics into Jdbc tables). The first job's source
 * tables are compared with the Jdbc tables of the second job, paired through the topics: the
 * first job's Kafka sinks say which topic each table goes to, the second job's Kafka sources
 * which table each topic is read as, its Jdbc sinks where that table is written.
 */

/** A Kafka sink of the first job, as verify reads it (the Kafka sink offers it). */
interface TopicSink {
  /** Each input table's topic; undefined: each row's (a column, or the record's own). */
  tableTopics(): Map<string, string | undefined>;
}

/** A Kafka source of the second job, as verify reads it (the Kafka source offers it). */
export interface TopicSource {
  topicTables(): Array<{ tableId: string; columns: readonly string[]; topics: readonly string[]; pattern?: RegExp }>;
  /** Each partition's last stable offset now, by split id. */
  committedEnds(topics: readonly string[]): Promise<Map<string, number>>;
  /** The next offset of each partition in a checkpoint's reader splits, by split id. */
  checkpointedOffsets(splits: readonly unknown[]): Map<string, number>;
}

/** A CDC source with format COMPATIBLE_DEBEZIUM_JSON: the topic of each captured table's records. */
interface RecordTopics {
  recordTopics(): Map<string, string> | undefined;
}

function has<K extends string>(x: unknown, name: K): x is Record<K, (...args: never[]) => unknown> {
  return typeof x === 'object' && x !== null && typeof (x as Record<string, unknown>)[name] === 'function';
}

/** One pipeline of the second job: its Kafka source and the topics of the compared tables, for the catch-up wait. */
export interface KafkaLeg {
  readonly pipelineId: number;
  readonly source: TopicSource;
  readonly topics: readonly string[];
}

/** The second job's side of one topic: the table it is read as and where that table is written. */
interface TopicTarget {
  readonly pipelineId: number;
  readonly source: TopicSource;
  readonly columns: readonly string[];
  readonly sink: ComparableTables;
  readonly table: ComparedTable;
}

function place(cfg: { file?: string; line?: number }) {
  return { place: { file: cfg.file, line: cfg.line } };
}

/** The topics each source table of the first job's pipeline is written to by its Kafka sinks, as [table id, topic] pairs. */
function topicsOfFirst(job: PlannedJob, p: PlannedJob['pipelines'][number], source: unknown): Array<[string, string]> {
  const recordTopics = has(source, 'recordTopics') ? (source as RecordTopics).recordTopics() : undefined;
  const out: Array<[string, string]> = [];
  for (const s of p.sinks) {
    const ctx = { jobId: job.jobId, jobMode: job.jobMode, parallelism: s.parallelism, inputTables: s.inputTables };
    const sink = createSink(s.plugin, ctx, job.registry);
    if (!has(sink, 'tableTopics'))
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `verify --then compares through Kafka: the first job's sinks must be Kafka sinks, and sink ${s.plugin.name} is not`,
        place(s.plugin),
      );
    for (const [tableId, topic] of (sink as TopicSink).tableTopics()) {
      // Debezium's records (format compatible_debezium_json): each captured table's own topic, or the sink's.
      if (recordTopics) for (const [t, recordTopic] of recordTopics) out.push([t, topic ?? recordTopic]);
      else if (topic !== undefined) out.push([tableId, topic]);
      else
        throw new ConfigError(
          ErrorCode.CONFIG_BAD_VALUE,
          `verify --then cannot tell which topic sink Kafka writes table ${tableId} to: its topic comes from a column of each row`,
          place(s.plugin),
        );
    }
  }
  return out;
}

/** What the second job makes of each topic: the table its Kafka source reads it as, and the Jdbc table that is written to. */
function targetsOfSecond(job: PlannedJob, topics: readonly string[]): Map<string, TopicTarget> {
  const out = new Map<string, TopicTarget>();
  for (const p of job.pipelines) {
    refuseTransforms(job, p);
    const source: unknown = p.source.prepared;
    if (!has(source, 'topicTables'))
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `verify --then compares through Kafka: the second job's sources must be Kafka sources, and source ${p.source.plugin.name} is not`,
        place(p.source.plugin),
      );
    const topicSource = source as unknown as TopicSource;
    const sinks = comparedSinks(job, p);
    for (const entry of topicSource.topicTables()) {
      for (const topic of topics) {
        if (!(entry.pattern ? entry.pattern.test(topic) : entry.topics.includes(topic)) || out.has(topic)) continue;
        for (const { sink, tables } of sinks) {
          const table = tables.find((t) => t.tableId === entry.tableId);
          if (table) out.set(topic, { pipelineId: p.pipelineId, source: topicSource, columns: entry.columns, sink, table });
        }
      }
    }
  }
  return out;
}

/**
 * The first job's source tables paired with the second job's Jdbc tables through the topics.
 * Columns are paired by name (a change format carries each column under its name); a source
 * column the second job's schema lacks is not compared. Refused (exit 2) when nothing pairs.
 */
export function comparedThroughKafka(first: PlannedJob, second: PlannedJob): { pipelines: ComparedPipeline[]; legs: KafkaLeg[] } {
  const pipelines: ComparedPipeline[] = [];
  const written = new Map<string, string>();
  const firstSides = first.pipelines.map((p) => {
    const side = comparedSource(first, p);
    const topics = topicsOfFirst(first, p, side.source);
    for (const [tableId, topic] of topics) {
      const other = written.get(topic);
      if (other !== undefined && other !== tableId)
        throw new ConfigError(
          ErrorCode.CONFIG_BAD_VALUE,
          `verify --then pairs one table per topic, and topic ${topic} carries tables ${other} and ${tableId}`,
          { place: { option: '--then' } },
        );
      written.set(topic, tableId);
    }
    return { p, side, topics };
  });
  const targets = targetsOfSecond(second, [...written.keys()]);
  const legs = new Map<number, { source: TopicSource; topics: Set<string> }>();
  for (const { p, side, topics } of firstSides) {
    const sourceTables: ComparedTable[] = [];
    const sinks = new Map<ComparableTables, ComparedTable[]>();
    for (const [tableId, topic] of topics) {
      const from = side.sourceTables.find((t) => t.tableId === tableId);
      const target = targets.get(topic);
      if (!from || !target) continue;
      const pairs = from.columns.flatMap((c) => {
        const j = target.columns.indexOf(c);
        return j >= 0 && target.table.columns[j] !== undefined ? [[c, target.table.columns[j]] as const] : [];
      });
      const missingKey = from.keyColumns.find((k) => !pairs.some(([c]) => c === k));
      if (missingKey !== undefined)
        throw new ConfigError(
          ErrorCode.CONFIG_BAD_VALUE,
          `verify --then cannot compare table ${from.tableId}: the second job reads topic ${topic} without its key column ${missingKey}`,
          place(second.pipelines.find((x) => x.pipelineId === target.pipelineId)!.source.plugin),
        );
      // A table written to several topics is compared with each target: each pair has its own id.
      const pairId = `${from.tableId} via ${topic}`;
      sourceTables.push({ ...from, tableId: pairId, columns: pairs.map(([c]) => c) });
      const list = sinks.get(target.sink) ?? [];
      list.push({ ...target.table, tableId: pairId, columns: pairs.map(([, c]) => c), keyColumns: [] });
      sinks.set(target.sink, list);
      const leg = legs.get(target.pipelineId) ?? { source: target.source, topics: new Set<string>() };
      leg.topics.add(topic);
      legs.set(target.pipelineId, leg);
    }
    if (sourceTables.length > 0)
      pipelines.push({
        pipelineId: p.pipelineId,
        source: side.source,
        sourceTables,
        sinks: [...sinks].map(([sink, tables]) => ({ sink, tables })),
      });
  }
  if (pipelines.length === 0)
    throw new ConfigError(
      ErrorCode.CONFIG_BAD_VALUE,
      `verify --then found no table to compare: the first job writes topics ${[...written.keys()].join(', ') || '(none)'}, and the second job writes none of them to a Jdbc table`,
      { place: { option: '--then' } },
    );
  return { pipelines, legs: [...legs].map(([pipelineId, l]) => ({ pipelineId, source: l.source, topics: [...l.topics] })) };
}

const POLL_MS = 200;

/**
 * After the first job caught up: records where a read_committed reader of the topics ends now,
 * then waits until a completed checkpoint of the second job's pipeline has read every partition
 * that far, and one more checkpoint after it (its sink's rows of the first are then committed).
 */
export async function waitForTopics(
  leg: KafkaLeg,
  storage: CheckpointStorage,
  jobId: string,
  timeoutMs: number,
): Promise<{ topics: readonly string[]; checkpointId: number }> {
  const ends = await leg.source.committedEnds(leg.topics);
  const end = Date.now() + timeoutMs;
  let passedAt: number | undefined;
  let behind = '';
  let seen = false;
  for (;;) {
    const latest = await storage.readLatest(jobId, leg.pipelineId);
    if (latest) {
      seen = true;
      // A task group's state as the runtime stores it: readerSplits by source vertex.
      const splits = latest.checkpoint.taskStates.flatMap((t) =>
        Object.values((t.state as { readerSplits?: Record<string, unknown[]> }).readerSplits ?? {}).flat(),
      );
      const read = leg.source.checkpointedOffsets(splits);
      const short = [...ends].filter(([id, offset]) => offset > 0 && (read.get(id) ?? 0) < offset);
      behind = short.map(([id, offset]) => `${id} at ${read.get(id) ?? 0} of ${offset}`).join(', ');
      if (passedAt === undefined && short.length === 0) passedAt = latest.checkpoint.checkpointId;
      if (passedAt !== undefined && latest.checkpoint.checkpointId > passedAt) return { topics: leg.topics, checkpointId: passedAt };
    }
    if (Date.now() > end) {
      if (!seen)
        throw new ConfigError(
          ErrorCode.CONFIG_BAD_VALUE,
          `job ${jobId} has no checkpoint of pipeline ${leg.pipelineId} in ${storage.description}: check --then-job-id and --then-engine-config`,
          { place: { option: '--then-job-id' } },
        );
      throw new TidewayError(
        ErrorCode.EXTERNAL_SYSTEM,
        `job ${jobId} did not read its topics to their end within ${Math.round(timeoutMs / 1000)} s: ${behind || 'no checkpoint after it read them'}`,
      );
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
