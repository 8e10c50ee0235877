/**
 * Why a file could not be read, in words: `no such file`, `permission denied`, ... instead of
 * Node's `ENOENT: no such file or directory, open '/x'` (the caller names the file itself).
 */
export function fileErrorText(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'it is a folder, not a file';
    case 'ENOTDIR':
      return 'a part of the path is not a folder';
    default:
      return err instanceof Error ? err.message : String(err);
  }
}
