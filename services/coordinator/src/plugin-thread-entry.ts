/**
 * Entry point of a pipeline attempt's plugin thread on the coordinator (plugin-thread.ts), or of
 * a job's planning thread at submit (the `plan.*` calls): it creates the plugin packages' source (its split enumerator, in an EnumeratorHost) and sinks
 * (their save modes, aggregated committers and abandon) and answers the main thread's calls,
 * each plugin call under the call clock the main thread watches.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Sink, SinkAggregatedCommitter, SourceSplit } from '@tideway/api';
import { rememberSecretsOf, setThreadJob } from '@tideway/common';
import type { PluginConfig } from '@tideway/config';
import { createSink, createSource, createTransform, loadPluginsFor, type InstantiateContext } from '@tideway/plugins/lazy';
import { CallClock } from '@tideway/runtime';
import { EnumeratorHost } from './enumerator-host.js';

export interface PluginThreadRequest {
  id: number;
  op:
    | 'enumerator.open'
    | 'enumerator.request'
    | 'enumerator.addSplitsBack'
    | 'enumerator.snapshot'
    | 'enumerator.thaw'
    | 'enumerator.notifyCheckpointComplete'
    | 'enumerator.close'
    | 'sink.create'
    | 'sink.prepare'
    | 'sink.abandon'
    | 'committer.create'
    | 'committer.combine'
    | 'committer.commit'
    | 'committer.close'
    | 'plan.source'
    | 'plan.transform'
    | 'plan.sink';
  args: unknown[];
}

export type PluginThreadReply =
  | { type: 'reply'; id: number; ok: true; value: unknown }
  | { type: 'reply'; id: number; ok: false; error: { message: string; code?: string; retryable?: boolean } }
  | { type: 'checkpoint-request' };

const port = parentPort;
if (!port) throw new Error('plugin-thread-entry must run in a worker thread');
const data = workerData as { clock: SharedArrayBuffer; jobId: string; packageDirs: string[] };
const clock = new CallClock(data.clock);
// Every line this thread logs is its job's.
setThreadJob(data.jobId);

let enumerator: EnumeratorHost | undefined;
const sinks = new Map<number, { sink: Sink; committer?: SinkAggregatedCommitter<unknown, unknown> }>();

function hosted(vertexId: number) {
  const s = sinks.get(vertexId);
  if (!s) throw new Error(`no sink of vertex ${vertexId} in this plugin thread`);
  return s;
}

function enumeratorHost(): EnumeratorHost {
  if (!enumerator) throw new Error('the split enumerator was not opened in this plugin thread');
  return enumerator;
}

async function load(plugin: PluginConfig) {
  // This thread's logger and errors mask the job's passwords too (module state is per thread).
  rememberSecretsOf(plugin.options);
  return loadPluginsFor([{ type: plugin.type, name: plugin.name }], data.packageDirs);
}

const ops: Record<PluginThreadRequest['op'], (...args: never[]) => unknown> = {
  // Planning at submit (docs/decisions/0093): the factories, Source.prepare and the tables'
  // inference of the job's plugin packages, each under the clock; only plain data goes back.
  'plan.source': async (vertexId: number, plugin: PluginConfig, spec: InstantiateContext) => {
    const registry = await load(plugin);
    const source = clock.runNamed('SourceFactory.create', vertexId, () => createSource(plugin, spec, registry));
    await clock.runNamed('Source.prepare', vertexId, () => source.prepare?.());
    const tables = clock.runNamed('Source.catalogTables', vertexId, () => source.catalogTables());
    return { tables, rescalable: source.rescalable === true };
  },
  'plan.transform': async (vertexId: number, plugin: PluginConfig, spec: InstantiateContext) => {
    const registry = await load(plugin);
    const transform = clock.runNamed('TransformFactory.create', vertexId, () => createTransform(plugin, spec, registry));
    return clock.runNamed('Transform.outputTables', vertexId, () => transform.outputTables());
  },
  'plan.sink': async (vertexId: number, plugin: PluginConfig, spec: InstantiateContext) => {
    const registry = await load(plugin);
    clock.runNamed('SinkFactory.create', vertexId, () => createSink(plugin, spec, registry));
  },
  'enumerator.open': async (vertexId: number, plugin: PluginConfig, spec: InstantiateContext, restored: unknown) => {
    const source = createSource(plugin, spec, await load(plugin));
    await clock.runNamed('Source.prepare', vertexId, () => source.prepare?.());
    const host = new EnumeratorHost(
      source,
      spec.parallelism,
      () => port.postMessage({ type: 'checkpoint-request' } satisfies PluginThreadReply),
      (method, call) => clock.runNamed(method, vertexId, call),
    );
    enumerator = host;
    await host.open(restored);
  },
  'enumerator.request': (subtask: number, register: boolean, request: boolean, events: unknown[], answerBy: number) =>
    enumeratorHost().request(subtask, register, request, events, answerBy),
  'enumerator.addSplitsBack': (splits: SourceSplit[], subtask: number) => enumeratorHost().addSplitsBack(splits, subtask),
  'enumerator.snapshot': (checkpointId: number) => enumeratorHost().snapshot(checkpointId),
  'enumerator.thaw': () => enumerator?.thaw(),
  'enumerator.notifyCheckpointComplete': (checkpointId: number) => enumeratorHost().notifyCheckpointComplete(checkpointId),
  'enumerator.close': () => enumerator?.close(),
  'sink.create': async (vertexId: number, plugin: PluginConfig, spec: InstantiateContext) => {
    const sink = createSink(plugin, spec, await load(plugin));
    sinks.set(vertexId, { sink });
    return { prepare: sink.prepare !== undefined, abandon: sink.abandon !== undefined };
  },
  'committer.create': (vertexId: number) => {
    const s = hosted(vertexId);
    s.committer = clock.runNamed('Sink.createAggregatedCommitter', vertexId, () => s.sink.createAggregatedCommitter?.());
    return s.committer !== undefined;
  },
  'sink.prepare': (vertexId: number) => {
    const { sink } = hosted(vertexId);
    return clock.runNamed('Sink.prepare', vertexId, () => sink.prepare?.());
  },
  'sink.abandon': (vertexId: number) => {
    const { sink } = hosted(vertexId);
    return clock.runNamed('Sink.abandon', vertexId, () => sink.abandon?.());
  },
  'committer.combine': (vertexId: number, infos: unknown[]) => {
    const c = hosted(vertexId).committer!;
    return clock.runNamed('SinkAggregatedCommitter.combine', vertexId, () => c.combine(infos));
  },
  'committer.commit': (vertexId: number, pending: unknown[]) => {
    const c = hosted(vertexId).committer!;
    return clock.runNamed('SinkAggregatedCommitter.commit', vertexId, () => c.commit(pending));
  },
  'committer.close': (vertexId: number) => {
    const c = hosted(vertexId).committer!;
    return clock.runNamed('SinkAggregatedCommitter.close', vertexId, () => c.close?.());
  },
};

port.on('message', (msg: PluginThreadRequest) => {
  const reply = (r: PluginThreadReply) => port.postMessage(r);
  (async () => (ops[msg.op] as (...args: unknown[]) => unknown)(...msg.args))().then(
    (value) => {
      try {
        reply({ type: 'reply', id: msg.id, ok: true, value });
      } catch (err) {
        // A value structured clone cannot copy (a function, a class instance with private state).
        reply({
          type: 'reply',
          id: msg.id,
          ok: false,
          error: { message: `its ${msg.op} result cannot be passed between threads: ${(err as Error).message}` },
        });
      }
    },
    (err: unknown) => {
      const e = err as { message?: string; code?: unknown; retryable?: unknown };
      reply({
        type: 'reply',
        id: msg.id,
        ok: false,
        error: {
          message: e?.message ?? String(err),
          ...(typeof e?.code === 'string' ? { code: e.code } : {}),
          ...(typeof e?.retryable === 'boolean' ? { retryable: e.retryable } : {}),
        },
      });
    },
  );
});
