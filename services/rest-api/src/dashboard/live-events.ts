import type { FastifyReply, FastifyRequest } from 'fastify';
import type { JobEvent } from '@tideway/contracts';
import { logger } from '@tideway/common';
import type { JobApi } from '../job-api.js';

/** Comment lines keep proxies from closing a quiet stream (a job with no news for a while). */
const KEEP_ALIVE_MS = 15_000;

/**
 * Answers with a Server-Sent Events stream fed by one WatchJob per job id: each event is
 * `shape(event)` as JSON under the event name `job`, sent when `shape` gives something new
 * (`undefined` skips it). Once every job ended the stream sends `done` and closes; when the
 * browser leaves, the watches are cancelled. Errors of a watch go to the browser as an `error` event naming the job.
 */
export function streamJobEvents(
  jobs: JobApi,
  ids: readonly string[],
  intervalMs: number,
  req: FastifyRequest,
  reply: FastifyReply,
  shape: (e: JobEvent) => unknown,
): void {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.write(': tideway dashboard events\n\n');
  const abort = new AbortController();
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
  // The response closes when the browser goes away (the request's own 'close' is about its body).
  res.on('close', () => {
    clearInterval(keepAlive);
    abort.abort();
  });
  const send = (event: string, data: unknown) => {
    if (!abort.signal.aborted) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  let watching = ids.length;
  const finish = () => {
    if (--watching > 0 || abort.signal.aborted) return;
    send('done', {});
    clearInterval(keepAlive);
    res.end();
  };
  if (ids.length === 0) {
    watching = 1;
    finish();
  }
  for (const jobId of ids) {
    let previous = '';
    jobs
      .watch(
        jobId,
        (e) => {
          const shaped = shape(e);
          if (shaped === undefined) return;
          const text = JSON.stringify(shaped);
          if (text === previous) return;
          previous = text;
          send('job', shaped);
        },
        intervalMs,
        abort.signal,
      )
      .then(
        () => finish(),
        (err: Error) => {
          if (abort.signal.aborted) return;
          logger('rest-api').debug({ err, jobId }, 'dashboard watch failed');
          send('error', { jobId, message: `the watch of job ${jobId} failed: ${err.message}` });
          finish();
        },
      );
  }
}
