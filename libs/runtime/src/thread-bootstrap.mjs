// Worker threads started from TypeScript sources: register tsx's loader in this thread,
// then load the real entry. (Node 20 ignores `--import` in a worker's execArgv.)
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

register();
await import(workerData.entry);
