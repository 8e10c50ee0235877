/**
 * Entry point of a task group's worker thread: receives `start`, runs the TaskGroupRunner,
 * forwards control messages to it and its reports to the main thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { FromTaskGroup, ToTaskGroup } from './protocol.js';
import { detach, rememberSecretsOf, setThreadJob } from '@tideway/common';
import { CallClock } from './call-clock.js';
import { TaskGroupRunner } from './task-group-runner.js';
import { loadPluginsFor } from '@tideway/plugins/lazy';

const port = parentPort;
if (!port) throw new Error('thread-entry must run in a worker thread');

let runner: TaskGroupRunner | undefined;
const send = (msg: FromTaskGroup): void => port.postMessage(msg);

port.on('message', (msg: ToTaskGroup) => {
  if (msg.type === 'start') {
    // This thread's logger and errors mask the job's passwords too (module state is per thread).
    rememberSecretsOf(msg.descriptor.root);
    // Every line this thread logs is its job's (kept in the job's log by the main thread).
    setThreadJob(msg.descriptor.jobId);
    runner = new TaskGroupRunner(msg.descriptor, send, undefined, new CallClock((workerData as { clock: SharedArrayBuffer }).clock));
    detach(
      runner.run().finally(() => port.close()),
      'a task group run',
    );
  } else if (msg.type === 'preload') {
    // Imports the packages while the main thread still plans; the task group's own load then
    // finds them in the module cache. A failure shows there, where the job reports it.
    loadPluginsFor(msg.plugins).catch(() => undefined);
  } else {
    runner?.deliver(msg);
  }
});
