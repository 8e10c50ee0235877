import type { Row, SchemaChangeEvent } from '@tideway/api';
import type { ShuffleOutput, TaskGroupDescriptor } from '../descriptor.js';
import type { CheckpointKind } from '../protocol.js';
import type { BusyTimeMeter } from '../busy-time.js';
import { ChannelSender } from './channel-sender.js';
import { Partitioner } from './partitioner.js';

/**
 * The sending side of one shuffle edge in a task group: partitions each batch over the
 * downstream task groups and sends each part on its channel.
 */
export class ShuffleWriter {
  private readonly partitioner: Partitioner;
  private readonly senders: ChannelSender[];

  constructor(descriptor: TaskGroupDescriptor, output: ShuffleOutput, meter?: BusyTimeMeter) {
    this.partitioner = new Partitioner(output.targets.length, output.keyIndexes);
    this.senders = output.targets.map((target) => {
      const address = descriptor.peers?.[target];
      if (!address) throw new Error(`shuffle ${output.shuffleId}: no worker address for task group ${target}`);
      return new ChannelSender(
        address,
        {
          jobId: descriptor.jobId,
          pipelineId: descriptor.pipelineId,
          attempt: descriptor.attempt,
          edgeId: output.shuffleId,
          fromTaskGroup: descriptor.taskGroupIndex,
          toTaskGroup: target,
        },
        meter,
      );
    });
  }

  async write(rows: readonly Row[]): Promise<void> {
    const parts = this.partitioner.split(rows);
    for (let i = 0; i < parts.length; i++) if (parts[i].length > 0) await this.senders[i].sendRows(parts[i]);
  }

  /** Sends a schema change to every downstream task group (each of its writers applies it). */
  async schemaChange(event: SchemaChangeEvent): Promise<void> {
    await Promise.all(this.senders.map((s) => s.sendSchemaChange(event)));
  }

  async barrier(checkpointId: number, kind: CheckpointKind): Promise<void> {
    await Promise.all(this.senders.map((s) => s.sendBarrier(checkpointId, kind)));
  }

  async end(): Promise<void> {
    await Promise.all(this.senders.map((s) => s.sendEnd()));
  }

  /** The fullest output channel's fill (0 to 1). */
  usage(): number {
    return this.senders.reduce((m, s) => Math.max(m, s.usage()), 0);
  }

  close(): void {
    for (const s of this.senders) s.close();
  }
}
