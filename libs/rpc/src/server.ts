import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { HealthImplementation, type ServingStatusMap } from 'grpc-health-check';
import { PROTO_FILES, PROTO_ROOT } from '@tideway/contracts';

/** Message size limit both ways: record batches and checkpoint states can be large. */
export const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

export const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
  'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
};

let packageDefinition: protoLoader.PackageDefinition | undefined;

/** health.proto as grpc-health-check ships it (beside its build/src/health.js). */
const HEALTH_PROTO = join(dirname(createRequire(import.meta.url).resolve('grpc-health-check')), '..', '..', 'proto', 'health', 'v1', 'health.proto');

/**
 * The proto descriptors, loaded once, for server reflection: Tideway's contracts and the
 * standard health service (without its descriptor reflection would not list it, and grpcurl
 * could not call grpc.health.v1.Health/Check).
 */
function descriptors(): protoLoader.PackageDefinition {
  packageDefinition ??= oneEntryPerFileSet({
    ...protoLoader.loadSync(PROTO_FILES, { includeDirs: [PROTO_ROOT], keepCase: true }),
    ...protoLoader.loadSync(HEALTH_PROTO, { keepCase: true }),
  });
  return packageDefinition;
}

/**
 * proto-loader gives every message and service an entry carrying the same file descriptors, and
 * ReflectionService decodes the descriptors of every entry: 60 times over for Tideway's
 * contracts, a sixth of a second per server at start-up. Reflection reads nothing else from the
 * entries, so one entry per distinct set of descriptors describes the same files.
 */
function oneEntryPerFileSet(pkg: protoLoader.PackageDefinition): protoLoader.PackageDefinition {
  const seen = new Set<unknown>();
  const out: protoLoader.PackageDefinition = {};
  for (const [name, def] of Object.entries(pkg)) {
    const files = (def as { fileDescriptorProtos?: unknown }).fileDescriptorProtos;
    if (seen.has(files)) continue;
    seen.add(files);
    out[name] = def;
  }
  return out;
}

/**
 * A gRPC server with the standard health service and server reflection, so grpcurl and
 * reflection clients see every Tideway service it serves.
 */
export class TidewayServer {
  readonly grpc: grpc.Server;
  private readonly health: HealthImplementation;
  private readonly served: string[] = [];

  constructor() {
    this.grpc = new grpc.Server(CHANNEL_OPTIONS);
    const status: ServingStatusMap = { '': 'SERVING' };
    this.health = new HealthImplementation(status);
    this.health.addToServer(this.grpc);
  }

  /** Adds a service; `fullName` is e.g. `tideway.v1.JobService` (for health and reflection). */
  add(fullName: string, definition: grpc.ServiceDefinition, impl: grpc.UntypedServiceImplementation): this {
    this.grpc.addService(definition, impl);
    this.served.push(fullName);
    this.health.setStatus(fullName, 'SERVING');
    return this;
  }

  /** Binds to host:port (port 0 picks a free one), registers reflection, returns the port. */
  async listen(host: string, port: number): Promise<number> {
    new ReflectionService(descriptors(), { services: [...this.served, 'grpc.health.v1.Health'] }).addToServer(this.grpc);
    return new Promise((resolve, reject) => {
      this.grpc.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (err, bound) => {
        if (err) reject(new Error(`cannot listen on ${host}:${port}: ${err.message}`));
        else resolve(bound);
      });
    });
  }

  setNotServing(): void {
    for (const s of ['', ...this.served]) this.health.setStatus(s, 'NOT_SERVING');
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
