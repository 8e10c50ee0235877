import { ErrorCode, TidewayError } from '@tideway/common';
import type { FileSystemAdapter } from './file-system.js';
import type { DATA_SAVE_MODES, SCHEMA_SAVE_MODES } from './sink-options.js';

export type SchemaSaveMode = (typeof SCHEMA_SAVE_MODES)[number];
export type DataSaveMode = (typeof DATA_SAVE_MODES)[number];

/**
 * SeaTunnel's save modes for file sinks, where the "schema" is the target folder and the
 * "data" the files in it. Runs once before the job writes (Sink.prepare), not on restore.
 */
export async function applySaveModes(
  fs: FileSystemAdapter,
  folder: string,
  schemaMode: SchemaSaveMode,
  dataMode: DataSaveMode,
  plugin: string,
): Promise<void> {
  switch (schemaMode) {
    case 'RECREATE_SCHEMA':
      await fs.delete(folder);
      await fs.mkdirs(folder);
      break;
    case 'CREATE_SCHEMA_WHEN_NOT_EXIST':
      if (!(await fs.exists(folder))) await fs.mkdirs(folder);
      break;
    case 'ERROR_WHEN_SCHEMA_NOT_EXIST':
      if (!(await fs.exists(folder))) {
        throw new TidewayError(
          ErrorCode.CONFIG_BAD_VALUE,
          `${plugin}: folder ${folder} does not exist and schema_save_mode is ERROR_WHEN_SCHEMA_NOT_EXIST.`,
        );
      }
      break;
    case 'IGNORE':
      break;
  }
  if (dataMode === 'APPEND_DATA') return;
  const files = await fs.listFiles(folder);
  if (dataMode === 'ERROR_WHEN_DATA_EXISTS' && files.length > 0) {
    throw new TidewayError(
      ErrorCode.CONFIG_BAD_VALUE,
      `${plugin}: folder ${folder} already holds ${files.length} file(s) (e.g. ${files[0].path}) and data_save_mode is ERROR_WHEN_DATA_EXISTS.`,
    );
  }
  if (dataMode === 'DROP_DATA') for (const f of files) await fs.delete(f.path);
}
