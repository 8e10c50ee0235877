import type * as grpc from '@grpc/grpc-js';
import { checkpointKindFromWire, type ExchangeMessage, type OpenChannel, type TaskGroupLocation } from '@tideway/contracts';
import { ErrorCode, TidewayError, logger } from '@tideway/common';
import { failStream } from '@tideway/rpc';
import type { ToTaskGroup } from '../protocol.js';

const log = logger('data-exchange');

import { INITIAL_CREDITS } from './input-gate.js';

export { INITIAL_CREDITS };

/** A task group running on this worker, as the receiving end of its shuffle channels sees it. */
export interface ReceivingTaskGroup {
  /** Its thread: batches, barriers and end markers go there. */
  readonly thread: { post(msg: ToTaskGroup, transfer?: ArrayBuffer[]): void };
  /** Incoming channels by upstream task group index: the credits its thread grants go back on them. */
  readonly channels: Map<number, { grantCredits(batches: number): void }>;
}

/** The worker's task groups, as the receiver finds them. */
export interface ReceivingTaskGroups {
  /** The running task group a channel is for, waiting up to `timeoutMs` while it deploys; undefined if none. */
  awaitRunning(location: TaskGroupLocation, timeoutMs: number): Promise<ReceivingTaskGroup | undefined>;
}

/**
 * The receiving end of shuffle channels on a worker (ChannelSender is the sending end): the
 * DataExchange service. Each stream carries one edge from an upstream task group to a task
 * group running here. Batches, barriers and the end marker go to the task group's thread in
 * order (batches moved, not copied twice); credits the thread grants go back on the stream.
 */
export function dataExchangeHandlers(tasks: ReceivingTaskGroups): grpc.UntypedServiceImplementation {
  return {
    exchange: (call: grpc.ServerDuplexStream<ExchangeMessage, ExchangeMessage>) => {
      let channel: OpenChannel | undefined;
      let deliver: ((m: ExchangeMessage) => void) | undefined;
      const early: ExchangeMessage[] = [];
      call.on('data', (m: ExchangeMessage) => {
        if (deliver) return deliver(m);
        if (channel) return void early.push(m);
        if (m.body?.$case !== 'open') {
          failStream(call, new TidewayError(ErrorCode.BAD_REQUEST, 'a DataExchange stream must start with OpenChannel'));
          return;
        }
        channel = m.body.value;
        const open = channel;
        const location = { jobId: open.jobId, pipelineId: open.pipelineId, taskGroupIndex: open.toTaskGroup, attempt: open.attempt };
        tasks.awaitRunning(location, 5000).then(
          (group) => {
            if (!group) {
              const where = `${open.jobId}/${open.pipelineId}/${open.toTaskGroup} attempt ${open.attempt}`;
              failStream(call, new TidewayError(ErrorCode.NOT_FOUND, `task group ${where} is not running here`));
              return;
            }
            const from = open.fromTaskGroup;
            group.channels.set(from, { grantCredits: (batches) => call.write({ body: { $case: 'credit', value: { batches } } }) });
            deliver = (msg) => {
              const body = msg.body;
              if (!body) return;
              if (body.$case === 'batch') {
                // A copy in a buffer of its own, moved to the thread without another copy.
                const rows = new Uint8Array(body.value.rows);
                group.thread.post({ type: 'exchange-batch', channel: from, rows }, [rows.buffer]);
              } else if (body.$case === 'barrier') {
                group.thread.post({
                  type: 'exchange-barrier',
                  channel: from,
                  checkpointId: body.value.checkpointId,
                  kind: checkpointKindFromWire(body.value.type),
                });
              } else if (body.$case === 'end') {
                group.thread.post({ type: 'exchange-end', channel: from });
              }
            };
            for (const m2 of early.splice(0)) deliver(m2);
            call.write({ body: { $case: 'credit', value: { batches: INITIAL_CREDITS } } });
          },
          (err: unknown) => failStream(call, err),
        );
      });
      call.on('end', () => call.end());
      call.on('error', (err) => log.debug({ err: err.message, channel }, 'exchange stream error'));
    },
  };
}
