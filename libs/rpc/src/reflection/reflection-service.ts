import * as grpc from '@grpc/grpc-js';
import { onFirstUse } from '@tideway/common';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import type { DescriptorIndex } from './descriptor-index.js';
import { addLazyService } from '../lazy-service.js';

/** A ServerReflectionRequest as proto-loader decodes it (keepCase, oneofs: the set field named). */
interface ReflectionRequest {
  host?: string;
  message_request?:
    | 'file_by_filename'
    | 'file_containing_symbol'
    | 'file_containing_extension'
    | 'all_extension_numbers_of_type'
    | 'list_services';
  file_by_filename?: string;
  file_containing_symbol?: string;
  file_containing_extension?: { containing_type?: string; extension_number?: number };
  all_extension_numbers_of_type?: string;
  list_services?: string;
}

/** The two versions clients speak: v1 (grpcurl, newer grpcio) and v1alpha (older clients). */
export const REFLECTION_SERVICES = ['grpc.reflection.v1.ServerReflection', 'grpc.reflection.v1alpha.ServerReflection'];

/** proto-loader (and protobufjs under it), loaded by the first server: only reflection needs it. */
const protoLoader = onFirstUse<typeof import('@grpc/proto-loader')>('@grpc/proto-loader', import.meta.url);

let definitions: grpc.ServiceDefinition[] | undefined;

/**
 * The reflection service definitions, built once per process from the reflection files of the
 * descriptor set they serve (with their imports). proto-loader makes a definition for every
 * service and message of what it is given, with each message's file descriptors: the whole set
 * took 250-700 ms a server on a 2-core machine (three servers in a local-mode CLI), the
 * reflection files alone 30-55 ms.
 */
function reflectionDefinitions(index: DescriptorIndex): grpc.ServiceDefinition[] {
  if (definitions) return definitions;
  const files = new Set<Uint8Array>();
  for (const name of REFLECTION_SERVICES) {
    const found = index.fileContainingSymbol(name);
    if (!found) throw new Error(`the descriptor set has no ${name}: regenerate it with pnpm gen`);
    for (const f of found) files.add(f);
  }
  const set = new BinaryWriter();
  for (const f of files) set.tag(1, WireType.LengthDelimited).bytes(f);
  const pkg = protoLoader().loadFileDescriptorSetFromBuffer(Buffer.from(set.finish()), {
    keepCase: true,
    oneofs: true,
    defaults: false,
  });
  definitions = REFLECTION_SERVICES.map((name) => pkg[name] as grpc.ServiceDefinition);
  return definitions;
}

/**
 * The answer to one reflection request. `listed` are the services this port serves; every
 * file answer carries the file with its imports, as the compiler wrote them.
 */
export function answer(index: DescriptorIndex, listed: string[], req: ReflectionRequest): object {
  const base = { valid_host: req.host ?? '', original_request: req };
  const files = (found: Uint8Array[] | undefined, what: string) =>
    found
      ? { ...base, file_descriptor_response: { file_descriptor_proto: found.map((b) => Buffer.from(b)) } }
      : { ...base, error_response: { error_code: grpc.status.NOT_FOUND, error_message: `${what} not found` } };
  switch (req.message_request) {
    case 'list_services':
      return { ...base, list_services_response: { service: listed.map((name) => ({ name })) } };
    case 'file_by_filename':
      return files(index.fileWithImports(req.file_by_filename ?? ''), `file ${req.file_by_filename}`);
    case 'file_containing_symbol':
      return files(index.fileContainingSymbol(req.file_containing_symbol ?? ''), `symbol ${req.file_containing_symbol}`);
    case 'file_containing_extension': {
      const ext = req.file_containing_extension ?? {};
      return files(
        index.fileContainingExtension(ext.containing_type ?? '', ext.extension_number ?? 0),
        `extension ${ext.extension_number} of ${ext.containing_type}`,
      );
    }
    case 'all_extension_numbers_of_type': {
      const type = req.all_extension_numbers_of_type ?? '';
      const numbers = index.extensionNumbersOf(type);
      return numbers
        ? { ...base, all_extension_numbers_response: { base_type_name: type, extension_number: numbers } }
        : { ...base, error_response: { error_code: grpc.status.NOT_FOUND, error_message: `type ${type} not found` } };
    }
    default:
      return {
        ...base,
        error_response: { error_code: grpc.status.INVALID_ARGUMENT, error_message: 'the request names no reflection query' },
      };
  }
}

/**
 * Adds server reflection (v1 and v1alpha) to a server, answering from the index `indexOf` gives
 * on the first reflection call (it reads and parses the descriptor set, so a server that is
 * never asked pays nothing: docs/decisions/0090). `services` are the services the port serves
 * (reflection lists itself too, as grpcurl expects); each must be described by the index, or a
 * client could list a service it cannot call: the first call fails naming the ones that are not.
 */
export function addReflection(server: grpc.Server, indexOf: () => DescriptorIndex, services: string[]): void {
  const listed = [...services, ...REFLECTION_SERVICES];
  REFLECTION_SERVICES.forEach((name, i) =>
    addLazyService(server, name, [{ name: 'ServerReflectionInfo', requestStream: true, responseStream: true }], () => {
      const index = indexOf();
      const undescribed = listed.filter((s) => !index.has(s));
      if (undescribed.length) throw new Error(`no descriptor for ${undescribed.join(', ')}: regenerate libs/contracts with pnpm gen`);
      return {
        definition: reflectionDefinitions(index)[i],
        handlers: {
          ServerReflectionInfo: (stream: grpc.ServerDuplexStream<ReflectionRequest, object>) => {
            stream.on('data', (req: ReflectionRequest) => stream.write(answer(index, listed, req)));
            stream.on('end', () => stream.end());
            stream.on('error', () => stream.end());
          },
        },
      };
    }),
  );
}
