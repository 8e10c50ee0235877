import type { PluginContext, PluginOptions, PluginSpec } from '@tideway/api';
import { ConfigError, ErrorCode, TidewayError } from '@tideway/common';
import { FileSink, FileSource, fileSinkSpec, fileSourceSpec } from '@tideway/connector-file-common';
import { S3AccessError } from './s3-errors.js';
import { S3FileSystem } from './s3-file-system.js';
import { resolveS3Connection, S3_OPTIONS, S3OptionError, validateS3Options } from './s3-options.js';

const PLUGIN = 'S3File';

/** A file spec with the S3 options added and both rule sets applied. */
function withS3(base: PluginSpec): PluginSpec {
  return { ...base, validate: (o) => base.validate?.(o) ?? validateS3Options(o) };
}

/** The S3File sink's options: the shared file sink options plus bucket, endpoint, credentials. */
export const s3FileSinkSpec: PluginSpec = withS3(fileSinkSpec(S3_OPTIONS));
/** The S3File source's options: the shared file source options plus bucket, endpoint, credentials. */
export const s3FileSourceSpec: PluginSpec = withS3(fileSourceSpec(S3_OPTIONS));

/** Opens the bucket the options name (no request is sent yet). */
export function s3FileSystemOf(options: PluginOptions): S3FileSystem {
  try {
    return new S3FileSystem(resolveS3Connection(options));
  } catch (err) {
    if (err instanceof S3OptionError) {
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `${PLUGIN}: ${err.message}`, { place: options.place(err.option) });
    }
    throw err;
  }
}

/** HeadBucket before anything else, so a bad endpoint, credentials or bucket fail in one sentence. */
async function checkBucket(fs: S3FileSystem, options: PluginOptions): Promise<void> {
  try {
    await fs.check();
  } catch (err) {
    const option = err instanceof S3AccessError ? err.option : 'fs.s3a.endpoint';
    throw new TidewayError(ErrorCode.CONNECTOR_IO, `${PLUGIN}: ${(err as Error).message}`, { place: options.place(option), cause: err });
  }
}

/** FileSink on S3: checks the bucket before the save modes run. */
export class S3FileSink extends FileSink {
  constructor(
    private readonly pluginCtx: PluginContext,
    private readonly s3: S3FileSystem,
  ) {
    super(pluginCtx, s3, PLUGIN);
  }

  override async prepare(): Promise<void> {
    await checkBucket(this.s3, this.pluginCtx.options);
    await super.prepare();
  }
}

/** FileSource on S3: checks the bucket before listing the objects under path. */
export class S3FileSource extends FileSource {
  constructor(
    private readonly pluginCtx: PluginContext,
    private readonly s3: S3FileSystem,
  ) {
    super(pluginCtx, s3, PLUGIN);
  }

  override async prepare(): Promise<void> {
    await checkBucket(this.s3, this.pluginCtx.options);
    await super.prepare();
  }
}
