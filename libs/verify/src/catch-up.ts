import type { CheckpointStorage } from '@tideway/checkpoint';
import { ConfigError, ErrorCode, TidewayError } from '@tideway/common';
import { checkpointedStreamPosition, type ChangePositions } from '@tideway/connector-cdc-common';

/** Where a CDC job's sink stood when the comparison began. */
export interface CatchUp {
  /** The end of the source's change log when verify started. */
  readonly recorded: string;
  /** The stream position of the checkpoint that passed it. */
  readonly reached: string;
  readonly checkpointId: number;
}

const POLL_MS = 200;

/**
 * Records the source's log position, then waits until a completed checkpoint of the job's
 * pipeline holds a stream position at or past it, and one more checkpoint after that: the
 * sink commits a checkpoint's rows when it completes (XA), so by the next one they are in.
 * Fails after `timeoutMs` with the positions; a job with no checkpoint at all in the storage
 * is a usage error (wrong --job-id or --engine-config).
 */
export async function waitForCatchUp(
  source: ChangePositions,
  storage: CheckpointStorage,
  jobId: string,
  pipelineId: number,
  timeoutMs: number,
): Promise<CatchUp> {
  const recorded = await source.currentChangePosition();
  const end = Date.now() + timeoutMs;
  let passedAt: { id: number; position: unknown } | undefined;
  let last: { id: number; position: unknown } | undefined;
  for (;;) {
    const latest = await storage.readLatest(jobId, pipelineId);
    if (latest) {
      const position = latest.checkpoint.taskStates.map((t) => checkpointedStreamPosition(t.state)).find((p) => p !== undefined);
      last = { id: latest.checkpoint.checkpointId, position };
      if (!passedAt && position !== undefined && source.changePositionReached(position, recorded)) passedAt = last;
      if (passedAt && latest.checkpoint.checkpointId > passedAt.id) {
        return {
          recorded: source.formatChangePosition(recorded),
          reached: source.formatChangePosition(passedAt.position),
          checkpointId: passedAt.id,
        };
      }
    }
    if (Date.now() > end) {
      if (!last) {
        throw new ConfigError(
          ErrorCode.CONFIG_BAD_VALUE,
          `job ${jobId} has no checkpoint of pipeline ${pipelineId} in ${storage.description}: check --job-id and --engine-config`,
          { place: { option: '--job-id' } },
        );
      }
      const at =
        last.position === undefined
          ? 'holds no stream position yet (still in the snapshot)'
          : `is at ${source.formatChangePosition(last.position)}`;
      throw new TidewayError(
        ErrorCode.EXTERNAL_SYSTEM,
        `the sink of job ${jobId} did not catch up within ${Math.round(timeoutMs / 1000)} s: the source log was at ${source.formatChangePosition(recorded)} and checkpoint ${last.id} ${at}`,
      );
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
