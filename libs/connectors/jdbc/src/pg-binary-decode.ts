// TEMPORARY (integrator's placeholder until the helper's module lands): int8, int4, text only.
export type BinaryFieldReader = (buf: Buffer, start: number, len: number) => unknown;
export function binaryFieldReader(oid: number, _typmod: number): BinaryFieldReader | undefined {
  if (oid === 20) return (b, s) => b.readBigInt64BE(s);
  if (oid === 23) return (b, s) => b.readInt32BE(s);
  if (oid === 25 || oid === 1043) return (b, s, l) => b.toString('utf8', s, s + l);
  return undefined;
}
export function decodeBinaryTuple(readers: readonly BinaryFieldReader[], buf: Buffer, start: number): unknown[] {
  const n = readers.length;
  const out = new Array<unknown>(n);
  let p = start + 2;
  for (let i = 0; i < n; i++) {
    const len = buf.readInt32BE(p);
    p += 4;
    if (len < 0) out[i] = null;
    else {
      out[i] = readers[i](buf, p, len);
      p += len;
    }
  }
  return out;
}
