import type { SinkFactory, SourceFactory } from '@tideway/api';
import { S3FileSink, S3FileSource, s3FileSinkSpec, s3FileSourceSpec, s3FileSystemOf } from './s3-file-plugins.js';

export { S3FileSystem, createS3Client, keyOf } from './s3-file-system.js';
export { S3AccessError, describeS3Error } from './s3-errors.js';
export {
  resolveS3Connection,
  S3_OPTIONS,
  S3OptionError,
  SIMPLE_PROVIDER,
  INSTANCE_PROFILE_PROVIDER,
  type S3Connection,
} from './s3-options.js';
export { S3FileSink, S3FileSource, s3FileSinkSpec, s3FileSourceSpec, s3FileSystemOf } from './s3-file-plugins.js';

/** SeaTunnel's S3File sink: text, csv or json objects in an S3 bucket, exactly-once by default. */
export const s3FileSinkFactory: SinkFactory = {
  type: 'sink',
  name: 'S3File',
  description:
    'Writes rows to text, csv or json objects in an S3 bucket (partition folders, custom file names, sink_columns). With is_enable_transaction (default) each checkpoint writes its objects under tmp_path in the bucket; the commit copies each to its final key and deletes the temp object (S3 has no rename): exactly-once, and a replayed commit changes nothing.',
  spec: s3FileSinkSpec,
  create: (ctx) => new S3FileSink(ctx, s3FileSystemOf(ctx.options)),
};

/** SeaTunnel's S3File source: text, csv or json objects under a key prefix of an S3 bucket. */
export const s3FileSourceFactory: SourceFactory = {
  type: 'source',
  name: 'S3File',
  description:
    'Reads text, csv or json objects under path in an S3 bucket (listed with continuation tokens; key=value folders become columns). Each object is a split; a restored split resumes at its checkpointed line. Bounded.',
  spec: s3FileSourceSpec,
  create: (ctx) => new S3FileSource(ctx, s3FileSystemOf(ctx.options)),
};
