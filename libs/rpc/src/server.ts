import { readFileSync } from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import type { HealthImplementation, ServingStatusMap } from 'grpc-health-check';
import { onFirstUse } from '@tideway/common';
import { DESCRIPTOR_SET_PATH } from '@tideway/contracts';
import { DescriptorIndex } from './reflection/descriptor-index.js';
import { addReflection } from './reflection/reflection-service.js';
import { addLazyService, captureService } from './lazy-service.js';
import { serverCredentials } from './tls.js';
import { jobServiceAuth } from './auth.js';
import { certificateCallerOf } from './cert-auth.js';

/** Message size limit both ways: record batches and checkpoint states can be large. */
export const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

let serverReceiveBytes = MAX_MESSAGE_BYTES;

/**
 * Sets the largest message every TidewayServer made afterwards receives
 * (tideway.limits.max-message-bytes); grpc-js refuses a larger one with RESOURCE_EXHAUSTED
 * before decoding it. Call before the servers are made, as configureTls.
 */
export function configureMessageLimit(bytes: number): void {
  serverReceiveBytes = bytes;
}

export const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
  'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
};

/**
 * The standard health service, loaded on a server's first health call: it parses its .proto
 * file with protobufjs when imported, which neither a process that only calls (the CLI's client
 * commands) nor a job's start needs.
 */
const healthCheck = onFirstUse<typeof import('grpc-health-check')>('grpc-health-check', import.meta.url);

/** grpc.health.v1.Health's methods, as its .proto file declares them. */
const HEALTH_METHODS = [
  { name: 'Check', requestStream: false, responseStream: false },
  { name: 'Watch', requestStream: false, responseStream: true },
  { name: 'List', requestStream: false, responseStream: false },
];

let descriptorIndex: DescriptorIndex | undefined;

/**
 * The descriptors reflection serves, read once per process on the first reflection call: buf's
 * compiled set (see DESCRIPTOR_SET_PATH), never descriptors rebuilt from a loaded schema, which
 * strict clients (grpcurl, Python's grpcio) reject on map fields.
 */
function descriptors(): DescriptorIndex {
  descriptorIndex ??= new DescriptorIndex(readFileSync(DESCRIPTOR_SET_PATH));
  return descriptorIndex;
}

/**
 * A gRPC server with the standard health service and server reflection, so grpcurl and
 * reflection clients see every Tideway service it serves. Both are built on their first call
 * (docs/decisions/0090).
 */
export class TidewayServer {
  readonly grpc: grpc.Server;
  /** Each service's health status, kept here until the health service is first called. */
  private readonly status: ServingStatusMap = { '': 'SERVING' };
  private health: HealthImplementation | undefined;
  private readonly served: string[] = [];

  constructor() {
    // JobService and TokenService calls are checked against the bearer tokens (or client certificates) of configureAuth (none: all pass).
    this.grpc = new grpc.Server({
      ...CHANNEL_OPTIONS,
      'grpc.max_receive_message_length': serverReceiveBytes,
      interceptors: [jobServiceAuth(certificateCallerOf)],
    });
    addLazyService(this.grpc, 'grpc.health.v1.Health', HEALTH_METHODS, () =>
      captureService((server) => {
        this.health = new (healthCheck().HealthImplementation)(this.status);
        this.health.addToServer(server);
      }),
    );
  }

  private setStatus(service: string, status: 'SERVING' | 'NOT_SERVING'): void {
    this.status[service] = status;
    this.health?.setStatus(service, status);
  }

  /** Adds a service; `fullName` is e.g. `tideway.v1.JobService` (for health and reflection). */
  add(fullName: string, definition: grpc.ServiceDefinition, impl: grpc.UntypedServiceImplementation): this {
    this.grpc.addService(definition, impl);
    this.served.push(fullName);
    this.setStatus(fullName, 'SERVING');
    return this;
  }

  /** Binds to host:port (port 0 picks a free one), registers reflection, returns the port. */
  async listen(host: string, port: number): Promise<number> {
    addReflection(this.grpc, descriptors, [...this.served, 'grpc.health.v1.Health']);
    return new Promise((resolve, reject) => {
      this.grpc.bindAsync(`${host}:${port}`, serverCredentials(), (err, bound) => {
        if (err) reject(new Error(`cannot listen on ${host}:${port}: ${err.message}`));
        else resolve(bound);
      });
    });
  }

  setNotServing(): void {
    for (const s of ['', ...this.served]) this.setStatus(s, 'NOT_SERVING');
  }

  /** Stops accepting calls; ends in-flight calls after `graceMs`. */
  async close(graceMs = 2000): Promise<void> {
    this.setNotServing();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.grpc.forceShutdown();
        resolve();
      }, graceMs);
      timer.unref();
      this.grpc.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
