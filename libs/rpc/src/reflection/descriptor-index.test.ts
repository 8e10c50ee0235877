import { readFileSync } from 'node:fs';
import { fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { DESCRIPTOR_SET_PATH } from '@tideway/contracts';
import { describe, expect, it } from 'vitest';
import { DescriptorIndex } from './descriptor-index.js';
import { answer } from './reflection-service.js';

const set = readFileSync(DESCRIPTOR_SET_PATH);
const index = new DescriptorIndex(set);
const names = (files: Uint8Array[] | undefined) => files?.map((b) => fromBinary(FileDescriptorProtoSchema, b).name);

describe('DescriptorIndex over the compiled descriptor set', () => {
  it('finds a service, a nested map entry and an enum value in their real files, with their imports after them', () => {
    expect(names(index.fileContainingSymbol('tideway.v1.JobService'))).toEqual([
      'tideway/v1/job_service.proto',
      'tideway/v1/common.proto',
      'tideway/v1/plugins.proto',
    ]);
    expect(names(index.fileContainingSymbol('.tideway.v1.SubmitJobRequest.VariablesEntry'))).toEqual([
      'tideway/v1/job_service.proto',
      'tideway/v1/common.proto',
      'tideway/v1/plugins.proto',
    ]);
    expect(names(index.fileContainingSymbol('grpc.health.v1.Health'))).toEqual(['grpc/health/v1/health.proto']);
    expect(index.fileContainingSymbol('tideway.v1.NoSuchThing')).toBeUndefined();
    expect(names(index.fileWithImports('tideway/v1/common.proto'))).toEqual(['tideway/v1/common.proto']);
  });

  it('hands out map entries as the compiler wrote them: map_entry set, the entry nested in its message', () => {
    const file = fromBinary(FileDescriptorProtoSchema, index.fileContainingSymbol('tideway.v1.SubmitJobRequest')![0]);
    const request = file.messageType.find((m) => m.name === 'SubmitJobRequest')!;
    expect(request.nestedType.map((n) => [n.name, n.options?.mapEntry])).toEqual([['VariablesEntry', true]]);
    expect(file.dependency).toEqual(['tideway/v1/common.proto', 'tideway/v1/plugins.proto']);
  });

  it('answers list, file and error requests in the reflection protocol shape', () => {
    expect(answer(index, ['a.B'], { message_request: 'list_services', list_services: '' })).toMatchObject({
      list_services_response: { service: [{ name: 'a.B' }] },
    });
    expect(answer(index, [], { message_request: 'file_by_filename', file_by_filename: 'nope.proto' })).toMatchObject({
      error_response: { error_code: 5, error_message: 'file nope.proto not found' },
    });
    const files = answer(index, [], { message_request: 'file_containing_symbol', file_containing_symbol: 'tideway.v1.JobInfo' }) as {
      file_descriptor_response: { file_descriptor_proto: Buffer[] };
    };
    // job_service.proto and its two imports
    expect(files.file_descriptor_response.file_descriptor_proto).toHaveLength(3);
  });
});
