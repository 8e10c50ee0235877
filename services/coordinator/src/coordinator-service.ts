import type * as grpc from '@grpc/grpc-js';
import {
  type Ack,
  type AcknowledgeCheckpointRequest,
  type GetJobLogsRequest,
  type GetJobLogsResponse,
  type ReportMetricsRequest,
  type ReportSchemaChangeRequest,
  type ReportTaskGroupsRequest,
  type ReportTaskStateRequest,
  type RequestSplitsRequest,
  type RequestSplitsResponse,
  type WorkerLostRequest,
} from '@tideway/contracts';
import { ErrorCode, TidewayError, logger, readLocalJobLogs } from '@tideway/common';
import { unaryHandler, required } from '@tideway/rpc';
import { commitInfosCodec, reportedStateFromWire, sourceEventCodec, splitCodec, taskGroupStateCodec } from '@tideway/runtime';
import type { Dispatcher } from './dispatcher.js';
import type { WorkerGateway } from './gateways.js';
import type { Leadership } from './leadership.js';

const log = logger('coordinator');

/** Time kept back from a split request's deadline for its answer to reach the worker. */
const SPLIT_ANSWER_MARGIN_MS = 1_000;

/** When a call's answer must be sent for its caller to still read it: its deadline (a Date or ms since the epoch; Infinity for none) less a margin. */
function answerBy(call: { getDeadline(): Date | number }): number {
  const d = call.getDeadline();
  return (d instanceof Date ? d.getTime() : d) - SPLIT_ANSWER_MARGIN_MS;
}
const OK: Ack = { ok: true, error: undefined };

/** What the CoordinatorService handlers reach of the coordinator process. */
export interface CoordinatorServiceHost {
  readonly fence: Leadership;
  readonly dispatcher: Dispatcher;
  readonly workers: Pick<WorkerGateway, 'cancel'>;
  /** Whether a take-over is in progress (it reconciles the workers' task groups itself). */
  takingOver(): boolean;
  /** Counts a worker the resource manager reported lost. */
  countWorkerLost(): void;
}

/**
 * CoordinatorService: what workers and the resource manager tell the leader (task states,
 * checkpoint acknowledgements, metrics, split requests, lost workers, running task groups).
 * A follower redirects them. Each report changes its job's state in one event-loop turn.
 */
export function coordinatorServiceHandlers(host: CoordinatorServiceHost): grpc.UntypedServiceImplementation {
  const { fence, dispatcher } = host;
  const pipeline = (jobId: string, pipelineId: number) => dispatcher.jobs.get(jobId)?.pipeline(pipelineId);
  /** Workers call the leader only: a follower redirects them. */
  const leaderOnly = <Req>(fn: (req: Req) => Promise<Ack> | Ack): grpc.handleUnaryCall<Req, Ack> =>
    unaryHandler<Req, Ack>(async (req) => {
      fence.check();
      return fn(req);
    });
  return {
    // Any coordinator answers with its own lines (another coordinator collects them).
    readJobLogs: unaryHandler<GetJobLogsRequest, GetJobLogsResponse>((req) => readLocalJobLogs(req)),
    reportTaskState: leaderOnly<ReportTaskStateRequest>((req) => {
      const loc = required(req.location, 'location');
      const p = pipeline(loc.jobId, loc.pipelineId);
      const state = reportedStateFromWire(req.state);
      if (p && state) p.onTaskState(loc.taskGroupIndex, loc.attempt, state, req.error);
      return OK;
    }),
    acknowledgeCheckpoint: leaderOnly<AcknowledgeCheckpointRequest>(async (req) => {
      const loc = required(req.location, 'location');
      const p = pipeline(loc.jobId, loc.pipelineId);
      if (p) {
        const state = taskGroupStateCodec.decodeOptional(req.state);
        const infos = commitInfosCodec.decodeOptional(req.commitInfos);
        await p.onAck(loc.taskGroupIndex, loc.attempt, req.checkpointId, state, infos, req.error);
      }
      return OK;
    }),
    reportMetrics: leaderOnly<ReportMetricsRequest>((req) => {
      const loc = required(req.location, 'location');
      const lag = Object.keys(req.sourceLag).length > 0 ? { sourceLag: req.sourceLag } : {};
      const bad = Object.keys(req.badRows).length > 0 ? { badRows: req.badRows } : {};
      pipeline(loc.jobId, loc.pipelineId)?.onMetrics(loc.taskGroupIndex, loc.attempt, {
        tables: req.tables,
        busyness: req.busyness,
        ...lag,
        ...bad,
      });
      return OK;
    }),
    reportSchemaChange: leaderOnly<ReportSchemaChangeRequest>((req) => {
      const loc = required(req.location, 'location');
      const change = { tableId: req.tableId, changes: req.changes, created: req.created };
      pipeline(loc.jobId, loc.pipelineId)?.onSchemaChange(loc.taskGroupIndex, loc.attempt, change);
      return OK;
    }),
    requestSplits: unaryHandler<RequestSplitsRequest, RequestSplitsResponse>(async (req, call) => {
      fence.check();
      const loc = required(req.location, 'location');
      const p = pipeline(loc.jobId, loc.pipelineId);
      if (!p) throw new TidewayError(ErrorCode.NOT_FOUND, `pipeline ${loc.jobId}/${loc.pipelineId} is not running`);
      const res = await p.requestSplits(
        loc.taskGroupIndex,
        loc.attempt,
        req.register,
        req.request,
        req.events.map((e) => sourceEventCodec.decode(e)),
        answerBy(call),
      );
      return { splits: res.splits.map((s) => splitCodec.encode(s)), noMoreSplits: res.noMoreSplits };
    }),
    workerLost: leaderOnly<WorkerLostRequest>((req) => {
      if (req.address === '') throw new TidewayError(ErrorCode.BAD_REQUEST, 'WorkerLost has no worker address');
      log.warn({ worker: req.address, reason: req.reason }, 'worker lost');
      host.countWorkerLost();
      dispatcher.workerLost(req.address);
      return OK;
    }),
    reportTaskGroups: leaderOnly<ReportTaskGroupsRequest>((req) => {
      if (host.takingOver()) return OK; // the take-over reconciles them itself
      for (const g of req.taskGroups) {
        const loc = required(g.location, 'location of a task group');
        const p = pipeline(loc.jobId, loc.pipelineId);
        if (p && !p.isEnded() && p.attempt === loc.attempt) continue;
        // No job of this leader runs it: an orphan of an earlier leader or attempt.
        log.warn(
          {
            jobId: loc.jobId,
            pipelineId: loc.pipelineId,
            taskGroup: loc.taskGroupIndex,
            attempt: loc.attempt,
            worker: req.workerAddress,
          },
          'cancelling an orphaned task group',
        );
        host.workers.cancel(req.workerAddress, loc, 'no job of the leader runs this task group').catch(() => undefined);
      }
      return OK;
    }),
  };
}
