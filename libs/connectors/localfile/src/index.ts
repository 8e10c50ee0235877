import type { SinkFactory, SourceFactory } from '@tideway/api';
import { FileSink, FileSource, LocalFileSystem, fileSinkSpec, fileSourceSpec } from '@tideway/connector-file-common';

const localFs = new LocalFileSystem();

/** SeaTunnel's LocalFile sink: text, csv or json files in a local folder, exactly-once by default. */
export const localFileSinkFactory: SinkFactory = {
  type: 'sink',
  name: 'LocalFile',
  description:
    'Writes rows to text, csv or json files in a local folder (partition folders, custom file names, sink_columns). With is_enable_transaction (default) each checkpoint writes into tmp_path and the commit moves the files into path: exactly-once, and a replayed commit changes nothing.',
  spec: fileSinkSpec(),
  create: (ctx) => new FileSink(ctx, localFs, 'LocalFile'),
};

/** SeaTunnel's LocalFile source: text, csv or json files from a local file or folder. */
export const localFileSourceFactory: SourceFactory = {
  type: 'source',
  name: 'LocalFile',
  description:
    'Reads text, csv or json files from a local file or folder (recursively; partition folders become columns). Each file is a split; a restored split resumes at its checkpointed line. Bounded.',
  spec: fileSourceSpec(),
  create: (ctx) => new FileSource(ctx, localFs, 'LocalFile'),
};
