// A worker thread of job-logs.test.ts: acts for a job and logs, as a task group's thread does.
import { parentPort } from 'node:worker_threads';
import { logger } from './logger.js';
import { setThreadJob } from './job-logs.js';

setThreadJob('777');
logger('thread').info({ n: 1 }, 'from a worker thread');
parentPort!.postMessage('logged');
