/**
 * SeaTunnel's own job configs (shared/conformance/seatunnel, outside the repository) run through
 * the real CLI in local mode, one test per MANIFEST line. Pass condition: the MANIFEST's
 * expectation (see expectation.ts); the two LocalFile checkpoint cases also check that exactly
 * 100 rows end up in committed files under the sink path and none stay in transaction files.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newJobId } from '@tideway/common';
import { readManifest, sharedConformanceDir, type ManifestCase } from './conformance-files.js';
import { runCli, spawnCli, waitForExit } from './cli-process.js';
import { checkOutcome } from './expectation.js';
import { clean, localFileSinkPath, textRowsUnder, transactionDir } from './local-file-output.js';

const dir = sharedConformanceDir();
const cases = readManifest(join(dir, 'MANIFEST.tsv'));
const casePath = (c: ManifestCase) => join(dir, 'cases', c.file);

/** Cases this suite does not run, by name, with the reason (printed, not only in the test title). */
const skipped: Record<string, string> = {
  'seatunnel-starter-e2e__batch_cancel_task_1.conf':
    'needs a running cluster for list/status/cancel: covered by the cluster suite in test/cluster',
};
for (const [file, reason] of Object.entries(skipped)) console.log(`conformance: skipped ${file}: ${reason}`);

/** Rows the checkpoint cases' FakeSource emits (row.num = 100 in both configs). */
const CHECKPOINT_ROWS = 100;

describe('SeaTunnel conformance cases (shared/), through the CLI', () => {
  for (const c of cases) {
    const title = `${c.file} -> ${c.expect}${c.args.length ? ` (${c.args.join(' ')})` : ''}`;
    if (skipped[c.file]) {
      it.skip(`${title}: ${skipped[c.file]}`, () => {});
      continue;
    }
    const text = readFileSync(casePath(c), 'utf8');
    const transactionalLocalFile = /LocalFile\s*\{/.test(text) && /is_enable_transaction\s*=\s*true/.test(text);
    if (c.expect === 'streaming') {
      if (!transactionalLocalFile) throw new Error(`${c.file}: a streaming case needs a handler in this suite`);
      it(title, () => streamingLocalFile(c, text), 180_000);
    } else if (transactionalLocalFile) {
      it(title, () => batchLocalFile(c, text), 180_000);
    } else {
      it(title, async () => checkOutcome(c.expect, await runCli(['run', '-c', casePath(c), ...c.args])), 180_000);
    }
  }
});

/** A BATCH job into a transactional LocalFile sink: committed rows only, none left in temp files. */
async function batchLocalFile(c: ManifestCase, text: string): Promise<void> {
  const sinkPath = localFileSinkPath(text);
  clean(sinkPath);
  const jobId = newJobId();
  const res = await runCli(['run', '-c', casePath(c), '--set-job-id', jobId, ...c.args]);
  checkOutcome(c.expect, res);
  expect(textRowsUnder(sinkPath), `rows committed under ${sinkPath}`).toBe(CHECKPOINT_ROWS);
  expect(textRowsUnder(transactionDir(jobId)), 'rows left in transaction files').toBe(0);
}

/**
 * A STREAMING job into a transactional LocalFile sink, in local mode: it never ends by itself, so
 * the test waits until the committed files hold all 100 rows, then sends Ctrl-C (SIGINT): the CLI
 * cancels the job and exits 130 with the job CANCELED. Nothing may be committed twice.
 */
async function streamingLocalFile(c: ManifestCase, text: string): Promise<void> {
  const sinkPath = localFileSinkPath(text);
  clean(sinkPath);
  const jobId = newJobId();
  const child = spawnCli(['run', '-c', casePath(c), '--set-job-id', jobId, ...c.args]);
  const exited = waitForExit(child);
  let ended = false;
  void exited.then(() => (ended = true));
  const deadline = Date.now() + 120_000;
  let rows = 0;
  while (!ended && Date.now() < deadline) {
    rows = textRowsUnder(sinkPath);
    if (rows >= CHECKPOINT_ROWS) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  if (ended) {
    const res = await exited;
    throw new Error(`the streaming job ended by itself (exit ${res.code}) with ${rows} rows committed\n${res.stderr}`);
  }
  if (rows < CHECKPOINT_ROWS) child.kill('SIGKILL');
  expect(rows, `rows committed under ${sinkPath} within 120 s`).toBe(CHECKPOINT_ROWS);
  // One more checkpoint interval: the count must stay at 100 (no duplicate commit).
  await new Promise((r) => setTimeout(r, 3_500));
  expect(textRowsUnder(sinkPath), 'rows committed after one more checkpoint').toBe(CHECKPOINT_ROWS);
  child.kill('SIGINT');
  const res = await exited;
  expect(res.code, res.stderr).toBe(130);
  expect(res.stderr).toMatch(new RegExp(`job ${jobId} CANCELED`));
  expect(textRowsUnder(sinkPath)).toBe(CHECKPOINT_ROWS);
  expect(textRowsUnder(transactionDir(jobId)), 'rows left in transaction files').toBe(0);
}
