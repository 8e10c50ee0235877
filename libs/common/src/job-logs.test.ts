import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { LOG_LEVELS, configureJobLogs, jobLogName, parseJobLogName, readLocalJobLogs, runForJob, stopJobLogs } from './job-logs.js';
import { logger } from './logger.js';
import { MASK, rememberSecret } from './secrets.js';

const dirs: string[] = [];
function keep(maxFileBytes = 1 << 20) {
  const dir = mkdtempSync(join(tmpdir(), 'tideway-job-logs-'));
  dirs.push(dir);
  return {
    dir,
    store: configureJobLogs({ dir, node: '127.0.0.1:5801', role: 'worker', level: LOG_LEVELS.info, maxFileBytes, expireMs: 60_000 }),
  };
}

afterEach(() => {
  stopJobLogs();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const read = (jobId: string, minLevel = '', sinceMs = 0) => readLocalJobLogs({ jobId, minLevel, sinceMs, maxLines: 0 });

describe('per-job logs', () => {
  it('keeps what is logged while acting for a job (and what names the job), masked, in that job’s file only', async () => {
    keep();
    rememberSecret('Tw0-planted-secret');
    const log = logger('test');
    await runForJob('111', async () => {
      log.info({ url: 'postgresql://u:Tw0-planted-secret@db/x' }, 'connecting');
      await new Promise((r) => setTimeout(r, 5));
      // Context survives awaits and timers.
      log.warn('after a timer, the password Tw0-planted-secret leaks');
      log.debug('below the kept level');
    });
    runForJob('222', () => log.info('the other job'));
    log.info({ jobId: '333' }, 'names its job itself');
    log.info('no job at all');
    const a = read('111');
    expect(a.lines.map((l) => l.msg)).toEqual(['connecting', `after a timer, the password ${MASK} leaks`]);
    expect(a.lines.every((l) => !l.line.includes('Tw0-planted-secret'))).toBe(true);
    expect(JSON.parse(a.lines[0].line)).toMatchObject({ jobId: '111', component: 'test' });
    expect(a.lines[0]).toMatchObject({ node: '127.0.0.1:5801', role: 'worker', level: 'info' });
    expect(read('222').lines.map((l) => l.msg)).toEqual(['the other job']);
    expect(read('333').lines.map((l) => l.msg)).toEqual(['names its job itself']);
    expect(read('111', 'warn').lines).toHaveLength(1);
    expect(read('111', '', a.lines[1].timeMs).lines.map((l) => l.msg)).toContain(`after a timer, the password ${MASK} leaks`);
    expect(
      readLocalJobLogs({ jobId: '', minLevel: '', sinceMs: 0, maxLines: 0 })
        .files.map((f) => f.jobId)
        .sort(),
    ).toEqual(['111', '222', '333']);
  });

  it('rotates a job’s file past its size, keeping one older file, and reads both in order', () => {
    const { dir } = keep(4096);
    const log = logger('test');
    runForJob('444', () => {
      for (let i = 0; i < 200; i++) log.info({ i }, 'line');
    });
    const names = readdirSync(dir).sort();
    expect(names).toEqual([jobLogName('444', 'worker', '127.0.0.1:5801'), `${jobLogName('444', 'worker', '127.0.0.1:5801')}.1`]);
    const total = names.reduce((n, f) => n + readFileSync(join(dir, f)).length, 0);
    expect(total).toBeLessThanOrEqual(2 * 4096);
    const is = read('444').lines.map((l) => (JSON.parse(l.line) as { i: number }).i);
    expect(is.at(-1)).toBe(199);
    expect(is).toEqual([...is].sort((x, y) => x - y));
    expect(is.length).toBeLessThan(200);
  });

  it('deletes the files of a job not written for the history expiry', () => {
    const { dir, store } = keep();
    runForJob('555', () => logger('test').info('old'));
    store.sweep();
    expect(readdirSync(dir)).toHaveLength(1);
    const file = join(dir, readdirSync(dir)[0]);
    const past = new Date(Date.now() - 120_000);
    utimesSync(file, past, past);
    store.sweep(); // still open: its job may write again
    expect(readdirSync(dir)).toHaveLength(1);
    store.sweep(Date.now() + 61_000); // idle for a minute: closed, and older than the expiry
    expect(readdirSync(dir)).toHaveLength(0);
  });

  it('keeps the lines of a worker thread acting for a job (handed to the main thread)', async () => {
    keep();
    const bootstrap = fileURLToPath(new URL('../../runtime/src/thread-bootstrap.mjs', import.meta.url));
    const worker = new Worker(bootstrap, {
      execArgv: ['--conditions=source'],
      workerData: { entry: new URL('./job-logs-thread.test-fixture.ts', import.meta.url).href },
    });
    await new Promise<void>((resolve, reject) => {
      worker.once('message', () => resolve());
      worker.once('error', reject);
    });
    await worker.terminate();
    await expect.poll(() => read('777').lines.map((l) => l.msg)).toEqual(['from a worker thread']);
  });

  it('names files so the job, role and node are read back', () => {
    expect(parseJobLogName(jobLogName('123', 'all', '[::1]:80'))).toEqual({ jobId: '123', role: 'all', nodePart: '___1__80' });
    expect(parseJobLogName('other.log')).toBeUndefined();
  });
});
