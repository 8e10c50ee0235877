import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { detach, newJobId } from '@tideway/common';
import { runCli, spawnCli, waitForExit } from './cli-process.js';
import { checkOutcome } from './expectation.js';
import { variablesOf } from './case-cleanup.js';
import { clean, localFileSinkPath, textRowsUnder, transactionDir } from './local-file-output.js';

/** One job config to run through the CLI and what must come of it. */
export interface CaseRun {
  config: string;
  expect: string;
  args: string[];
  /**
   * For a job into a LocalFile sink: the rows that must end up in committed files under the
   * sink path (cleaned before the run), with none left in the job's transaction files.
   */
  committedRows?: number;
}

/**
 * Runs a case as its expectation says: to its end, or (streaming) until Ctrl-C. Its checkpoints
 * go to a private folder removed afterwards (the default namespace is under /tmp/seatunnel,
 * where they would pile up run after run).
 */
export async function runCase(c: CaseRun): Promise<void> {
  const checkpoints = mkdtempSync(join(tmpdir(), 'tideway-case-checkpoints-'));
  const run = { ...c, args: [...c.args, '--set', `checkpoint.storage.plugin-config.namespace=${checkpoints}/`] };
  try {
    if (run.expect === 'streaming') {
      await (run.committedRows === undefined ? streamingUntilCancelled(run) : streamingLocalFile(run, run.committedRows));
    } else if (run.committedRows !== undefined) {
      await batchLocalFile(run, run.committedRows);
    } else {
      checkOutcome(run.expect, await runCli(['run', '-c', run.config, ...run.args]));
    }
  } finally {
    rmSync(checkpoints, { recursive: true, force: true });
  }
}

/** The LocalFile sink path of a case, with its `-i` variables filled in. */
function sinkPathOf(c: CaseRun): string {
  const vars = variablesOf(c.args);
  return localFileSinkPath(readFileSync(c.config, 'utf8')).replace(/\$\{(\w+)\}/g, (m, k: string) => vars.get(k) ?? m);
}

/** A BATCH job into a transactional LocalFile sink: committed rows only, none left in temp files. */
async function batchLocalFile(c: CaseRun, rows: number): Promise<void> {
  const sinkPath = sinkPathOf(c);
  clean(sinkPath);
  const jobId = newJobId();
  checkOutcome(c.expect, await runCli(['run', '-c', c.config, '--set-job-id', jobId, ...c.args]));
  expect(textRowsUnder(sinkPath), `rows committed under ${sinkPath}`).toBe(rows);
  expect(textRowsUnder(transactionDir(jobId)), 'rows left in transaction files').toBe(0);
}

/** Sends Ctrl-C to a running CLI and checks it cancels the job: exit 130, the job CANCELED. */
async function interrupt(child: ReturnType<typeof spawnCli>, exited: ReturnType<typeof waitForExit>, jobId: string): Promise<void> {
  child.kill('SIGINT');
  const res = await exited;
  expect(res.code, res.stderr).toBe(130);
  expect(res.stderr).toContain(`job ${jobId} CANCELED`);
}

/**
 * A STREAMING job into a transactional LocalFile sink, in local mode: it never ends by itself, so
 * this waits until the committed files hold all the rows, waits one more checkpoint (the count
 * must not grow: no duplicate commit), then sends Ctrl-C.
 */
async function streamingLocalFile(c: CaseRun, rows: number): Promise<void> {
  const sinkPath = sinkPathOf(c);
  clean(sinkPath);
  const jobId = newJobId();
  const child = spawnCli(['run', '-c', c.config, '--set-job-id', jobId, ...c.args]);
  const exited = waitForExit(child);
  let ended = false;
  detach(
    exited.then(() => (ended = true)),
    'waiting for the process to exit',
  );
  const deadline = Date.now() + 120_000;
  let seen = 0;
  while (!ended && Date.now() < deadline) {
    seen = textRowsUnder(sinkPath);
    if (seen >= rows) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  if (ended) {
    const res = await exited;
    throw new Error(`the streaming job ended by itself (exit ${res.code}) with ${seen} rows committed\n${res.stderr}`);
  }
  if (seen < rows) child.kill('SIGKILL');
  expect(seen, `rows committed under ${sinkPath} within 120 s`).toBe(rows);
  await new Promise((r) => setTimeout(r, 3_500));
  expect(textRowsUnder(sinkPath), 'rows committed after one more checkpoint').toBe(rows);
  await interrupt(child, exited, jobId);
  expect(textRowsUnder(sinkPath)).toBe(rows);
  expect(textRowsUnder(transactionDir(jobId)), 'rows left in transaction files').toBe(0);
}

/**
 * A STREAMING job that must still run a few seconds after it started running, then end CANCELED
 * on Ctrl-C. Its start is read from the debug log (the job's RUNNING status): on a loaded machine
 * starting the CLI can take longer than those seconds, and a Ctrl-C before the job is submitted
 * just stops the process.
 */
async function streamingUntilCancelled(c: CaseRun): Promise<void> {
  const jobId = newJobId();
  const child = spawnCli(['run', '-c', c.config, '--set-job-id', jobId, ...c.args], { TIDEWAY_LOG_LEVEL: 'debug' });
  const exited = waitForExit(child);
  let log = '';
  const running = new Promise<void>((resolve) =>
    child.stderr!.on('data', (s: string) => {
      log += s;
      if (/"component":"job-master"[^\n]*"status":"RUNNING"/.test(log)) resolve();
    }),
  );
  const started = await Promise.race([
    running.then(() => true),
    exited.then(() => false),
    new Promise<false>((r) => setTimeout(() => r(false), 60_000)),
  ]);
  if (!started) {
    child.kill('SIGKILL');
    const res = await exited;
    throw new Error(`the streaming job was not RUNNING within 60 s (exit ${res.code})\n${res.stderr.slice(-3000)}`);
  }
  const early = await Promise.race([exited, new Promise<undefined>((r) => setTimeout(() => r(undefined), 6_000))]);
  if (early) throw new Error(`the streaming job ended by itself (exit ${early.code})\n${early.stderr}`);
  await interrupt(child, exited, jobId);
}
