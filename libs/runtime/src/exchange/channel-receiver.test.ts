import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { RowKind, type Row } from '@tideway/api';
import {
  DataExchangeClient,
  DataExchangeService,
  type ExchangeMessage,
  type OpenChannel,
  type TaskGroupLocation,
} from '@tideway/contracts';
import { TidewayServer, channelCredentials, clientOptions } from '@tideway/rpc';
import type { ToTaskGroup } from '../protocol.js';
import { ChannelSender } from './channel-sender.js';
import { INITIAL_CREDITS, dataExchangeHandlers, type ReceivingTaskGroup, type ReceivingTaskGroups } from './channel-receiver.js';
import { decodeExchanged } from './row-codec.js';

/** A hand-written task group: records what its thread is posted. */
class FakeTaskGroup implements ReceivingTaskGroup {
  readonly posted: ToTaskGroup[] = [];
  readonly channels = new Map<number, { grantCredits(batches: number): void }>();
  readonly thread = { post: (msg: ToTaskGroup) => void this.posted.push(msg) };
}

/** Task group 1 of job-1/1 attempt 3 runs here; nothing else does. */
class FakeTaskGroups implements ReceivingTaskGroups {
  readonly group = new FakeTaskGroup();
  readonly asked: TaskGroupLocation[] = [];
  awaitRunning(location: TaskGroupLocation): Promise<ReceivingTaskGroup | undefined> {
    this.asked.push(location);
    const here = location.jobId === 'job-1' && location.pipelineId === 1 && location.taskGroupIndex === 1 && location.attempt === 3;
    return Promise.resolve(here ? this.group : undefined);
  }
}

const open: OpenChannel = { jobId: 'job-1', pipelineId: 1, attempt: 3, edgeId: 7, fromTaskGroup: 0, toTaskGroup: 1 };
const row = (i: number): Row => ({ kind: RowKind.INSERT, tableId: 't', fields: [i, `r${i}`, BigInt(i)] });

async function until(what: string, ok: () => boolean, timeoutMs = 20_000): Promise<void> {
  for (const end = Date.now() + timeoutMs; !ok(); ) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Opens a raw stream, writes `first`, and resolves with the error the receiver ends it with. */
function rawStreamError(address: string, first: ExchangeMessage): Promise<grpc.ServiceError> {
  const client = new DataExchangeClient(address, channelCredentials(), clientOptions);
  return new Promise((resolve, reject) => {
    const stream = client.exchange();
    stream.on('data', () => reject(new Error('the receiver answered instead of failing the stream')));
    stream.on('error', (err: grpc.ServiceError) => {
      client.close();
      resolve(err);
    });
    stream.write(first);
  });
}

describe('DataExchange receiver', () => {
  const tasks = new FakeTaskGroups();
  const server = new TidewayServer().add('tideway.v1.DataExchange', DataExchangeService, dataExchangeHandlers(tasks));
  let address = '';

  beforeAll(async () => {
    address = `127.0.0.1:${await server.listen('127.0.0.1', 0)}`;
  });
  afterAll(() => server.close(100));

  it('hands batches, a barrier and the end to the task group thread in order, and returns its credits to the sender', async () => {
    const sender = new ChannelSender(address, open);
    const group = tasks.group;
    // The receiver grants INITIAL_CREDITS when the channel opens: one batch more waits for a credit.
    for (let i = 0; i < INITIAL_CREDITS; i++) await sender.sendRows([row(i)]);
    const extra = sender.sendRows([row(INITIAL_CREDITS)]);
    await until(`${INITIAL_CREDITS} batches arrived`, () => group.posted.length === INITIAL_CREDITS);
    await new Promise((r) => setTimeout(r, 200));
    expect(group.posted).toHaveLength(INITIAL_CREDITS);
    expect(tasks.asked[0]).toEqual({ jobId: 'job-1', pipelineId: 1, taskGroupIndex: 1, attempt: 3 });
    group.channels.get(0)!.grantCredits(1);
    await extra;
    await sender.sendBarrier(42, 'SAVEPOINT');
    await sender.sendEnd();
    await until('the end arrived', () => group.posted.length === INITIAL_CREDITS + 3);
    sender.close();

    const batches = group.posted.slice(0, INITIAL_CREDITS + 1);
    expect(batches.map((m) => (m.type === 'exchange-batch' ? [m.channel, decodeExchanged(m.rows)] : m))).toEqual(
      Array.from({ length: INITIAL_CREDITS + 1 }, (_, i) => [0, [row(i)]]),
    );
    expect(group.posted.slice(INITIAL_CREDITS + 1)).toEqual([
      { type: 'exchange-barrier', channel: 0, checkpointId: 42, kind: 'SAVEPOINT' },
      { type: 'exchange-end', channel: 0 },
    ]);
  });

  it('refuses a stream that does not start with OpenChannel', async () => {
    const err = await rawStreamError(address, { body: { $case: 'end', value: {} } });
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(err.details).toBe('a DataExchange stream must start with OpenChannel');
  });

  it('refuses a channel to a task group that is not running here, naming it', async () => {
    const err = await rawStreamError(address, { body: { $case: 'open', value: { ...open, attempt: 2 } } });
    expect(err.code).toBe(grpc.status.NOT_FOUND);
    expect(err.details).toBe('task group job-1/1/1 attempt 2 is not running here');
  });
});
