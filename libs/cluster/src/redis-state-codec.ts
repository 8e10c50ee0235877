import { ErrorCode } from '@tideway/common';
import { StateStoreError, type CheckpointPointer, type StoredJob, type StoredJobInfo, type StoredJobState } from './state-store.js';

/**
 * Decodes one `{info, state, {pipelineId, pointer, ...}}` reply of the state scripts. A value that
 * is not JSON means something else wrote the key: refused with the job id, never guessed at.
 */
export function decodeJob(reply: unknown, address: string): StoredJob {
  const [infoText, stateText, flat] = reply as [string, string, string[]];
  const info = parse<StoredJobInfo>(infoText, address, 'info');
  const state = parse<StoredJobState>(stateText, address, `state of job ${info.jobId}`);
  const checkpoints: Record<number, CheckpointPointer> = {};
  for (let i = 0; i < flat.length; i += 2)
    checkpoints[Number(flat[i])] = parse<CheckpointPointer>(flat[i + 1], address, `checkpoint pointer of job ${info.jobId}`);
  return { info, state, checkpoints };
}

export function decodeJobs(reply: unknown, address: string): StoredJob[] {
  return (reply as unknown[]).map((r) => decodeJob(r, address));
}

function parse<T>(text: string, address: string, what: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new StateStoreError(
      ErrorCode.EXTERNAL_SYSTEM,
      `the Redis state store at ${address} holds a ${what} that is not JSON: another program wrote it`,
      { cause: err },
    );
  }
}
