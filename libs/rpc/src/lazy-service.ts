import * as grpc from '@grpc/grpc-js';

/** One method of a service: its name as in the .proto file and whether each side streams. */
export interface LazyMethod {
  name: string;
  requestStream: boolean;
  responseStream: boolean;
}

/** What a lazy service builds on its first call: the real definition and its handlers, keyed by method name. */
export interface LoadedService {
  definition: grpc.ServiceDefinition;
  handlers: Record<string, grpc.UntypedHandleCall>;
}

/**
 * Adds a service whose definition (message codecs) and handlers are built on its first call, not
 * when the server starts: the health and reflection services load protobufjs and parse
 * descriptors to make theirs, 80-120 ms of CPU in each server of a process, which a job's start
 * waited for and which almost no run uses (docs/decisions/0090). The paths and streaming kinds
 * are known up front, so grpc-js routes the calls as before; every codec and handler call goes to
 * what `load` built.
 */
export function addLazyService(server: grpc.Server, fullName: string, methods: LazyMethod[], load: () => LoadedService): void {
  let loaded: LoadedService | undefined;
  const real = (): LoadedService => {
    loaded ??= load();
    return loaded;
  };
  const found = new Map<string, grpc.MethodDefinition<unknown, unknown>>();
  const method = (name: string): grpc.MethodDefinition<unknown, unknown> => {
    let m = found.get(name);
    if (!m) {
      m = Object.values(real().definition).find((d) => d.path === `/${fullName}/${name}`) as
        | grpc.MethodDefinition<unknown, unknown>
        | undefined;
      if (!m) throw new Error(`the ${fullName} definition has no method ${name}`);
      found.set(name, m);
    }
    return m;
  };
  const definition: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
  const handlers: grpc.UntypedServiceImplementation = {};
  for (const m of methods) {
    definition[m.name] = {
      path: `/${fullName}/${m.name}`,
      requestStream: m.requestStream,
      responseStream: m.responseStream,
      requestSerialize: (value: unknown) => method(m.name).requestSerialize(value),
      requestDeserialize: (bytes: Buffer) => method(m.name).requestDeserialize(bytes),
      responseSerialize: (value: unknown) => method(m.name).responseSerialize(value),
      responseDeserialize: (bytes: Buffer) => method(m.name).responseDeserialize(bytes),
    };
    handlers[m.name] = ((call: NodeJS.EventEmitter, callback?: (err: grpc.ServiceError | null) => void) => {
      let handler: ((call: unknown, callback: unknown) => void) | undefined;
      let failure: string;
      try {
        handler = real().handlers[m.name] as typeof handler;
        failure = `${fullName} has no handler for ${m.name}`;
      } catch (err) {
        failure = `${fullName} cannot start: ${err instanceof Error ? err.message : String(err)}`;
      }
      if (handler) return handler(call, callback);
      // The call ends with INTERNAL and the reason (a stream's status is sent by its error event).
      const status = Object.assign(new Error(failure), { code: grpc.status.INTERNAL, details: failure, metadata: new grpc.Metadata() });
      if (callback) callback(status);
      else call.emit('error', status);
    }) as grpc.UntypedHandleCall;
  }
  server.addService(definition, handlers);
}

/**
 * A stand-in server that keeps what a library's `addToServer(server)` adds, so its definition and
 * handlers can back a lazy service (grpc-health-check adds its service this way).
 */
export function captureService(add: (server: grpc.Server) => void): LoadedService {
  let captured: LoadedService | undefined;
  const stand = {
    addService(definition: grpc.ServiceDefinition, implementation: grpc.UntypedServiceImplementation) {
      // proto-loader definitions key methods by name and give handlers by name or originalName.
      const handlers: Record<string, grpc.UntypedHandleCall> = {};
      for (const [key, m] of Object.entries(definition)) {
        const name = m.path.slice(m.path.lastIndexOf('/') + 1);
        const handler = implementation[key] ?? (m.originalName ? implementation[m.originalName] : undefined);
        if (handler) handlers[name] = handler;
      }
      captured = { definition, handlers };
    },
  };
  add(stand as unknown as grpc.Server);
  if (!captured) throw new Error('the service added nothing to the server');
  return captured;
}
