/** A position in the binlog: file name and byte offset. Plain data (checkpointed). */
export interface BinlogPosition {
  readonly file: string;
  readonly pos: number;
}

/** The sequence number a binlog file name ends with (binlog.000042 -> 42). */
function fileSeq(file: string): number {
  const m = /(\d+)$/.exec(file);
  return m ? Number(m[1]) : 0;
}

/** Orders positions: by file sequence, then offset. */
export function compareBinlog(a: BinlogPosition, b: BinlogPosition): number {
  const f = fileSeq(a.file) - fileSeq(b.file);
  return f !== 0 ? f : a.pos - b.pos;
}

/**
 * A position as one 64-bit number in binlog order (Row.version): the file's sequence number
 * times 2^32 plus the offset (a binlog file stays far below 4 GiB).
 */
export function binlogVersion(p: BinlogPosition): bigint {
  return (BigInt(fileSeq(p.file)) << 32n) + BigInt(p.pos);
}
