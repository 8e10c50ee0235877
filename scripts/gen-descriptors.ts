// The descriptor set every Tideway gRPC port serves through reflection, as buf's compiler builds
// it: one FileDescriptorProto per .proto file with its real name and imports (what protoc
// writes), never descriptors rebuilt from a loaded schema. Tideway's module (proto/) comes first,
// then the standard services every port also serves: grpc.health.v1 (from grpc-health-check) and
// grpc.reflection v1 and v1alpha (from @grpc/reflection), laid out under their canonical names
// (grpc/health/v1/health.proto, ...) so a client sees the same file names as in grpc-proto.
// `pnpm gen` writes it; the contract test fails when it is older than the .proto files.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Where the generated set lives: beside ts-proto's output, read by @tideway/contracts. */
export const DESCRIPTORS_OUT = join(repo, 'libs/contracts/src/gen/descriptors.binpb');

function bufBuild(input: string): Buffer {
  const out = join(mkdtempSync(join(tmpdir(), 'tideway-buf-')), 'set.binpb');
  try {
    // --as-file-descriptor-set: a plain FileDescriptorSet (no buf image extensions). Source info
    // stays, so a reflection client shows the .proto comments when it describes a service.
    execFileSync(join(repo, 'node_modules/.bin/buf'), ['build', input, '--as-file-descriptor-set', '-o', out], {
      cwd: repo,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    return readFileSync(out);
  } finally {
    rmSync(dirname(out), { recursive: true, force: true });
  }
}

/** The .proto files of the standard services, from the packages that implement them. */
function standardProtos(): Record<string, string> {
  const req = createRequire(join(repo, 'libs/rpc/package.json'));
  const health = join(dirname(req.resolve('grpc-health-check')), '..', '..', 'proto', 'health', 'v1', 'health.proto');
  const reflection = join(dirname(req.resolve('@grpc/reflection')), '..', 'proto', 'grpc', 'reflection');
  return {
    'grpc/health/v1/health.proto': health,
    'grpc/reflection/v1/reflection.proto': join(reflection, 'v1', 'reflection.proto'),
    'grpc/reflection/v1alpha/reflection.proto': join(reflection, 'v1alpha', 'reflection.proto'),
  };
}

/**
 * Builds the whole set. Two FileDescriptorSets concatenated are one (its only field is a
 * repeated message), so Tideway's and the standard files are built apart and joined.
 */
export function buildDescriptorSet(): Buffer {
  const stage = mkdtempSync(join(tmpdir(), 'tideway-std-protos-'));
  try {
    for (const [name, from] of Object.entries(standardProtos())) {
      mkdirSync(dirname(join(stage, name)), { recursive: true });
      copyFileSync(from, join(stage, name));
    }
    return Buffer.concat([bufBuild('proto'), bufBuild(stage)]);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const set = buildDescriptorSet();
  writeFileSync(DESCRIPTORS_OUT, set);
  console.log(`${set.length} bytes of descriptors written to ${DESCRIPTORS_OUT}`);
}
