/**
 * LZO1X-1 compression and LZO1X decompression in TypeScript, after the algorithm of Markus
 * Oberhumer's LZO library (lzo1x_1.c / lzo1x_d.ch), which SeaTunnel reaches through airlift's
 * LzopCodec. A native binding (npm `lzo`) needs node-gyp to fetch Node's headers at install,
 * which these machines cannot; the format is small enough to carry here.
 */

const D_BITS = 14;
const D_MASK = (1 << D_BITS) - 1;
const M2_MAX_LEN = 8;
const M2_MAX_OFFSET = 0x0800;
const M3_MAX_OFFSET = 0x4000;
const M3_MAX_LEN = 33;
const M4_MAX_LEN = 9;
const M3_MARKER = 32;
const M4_MARKER = 16;
/** Input is compressed in pieces of this size: dictionary offsets fit 16 bits and M4's distance. */
const PIECE = 49152;

/** Output buffer that grows. */
class Out {
  buf: Uint8Array;
  n = 0;
  constructor(size: number) {
    this.buf = new Uint8Array(size);
  }
  ensure(extra: number): void {
    if (this.n + extra <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.n + extra));
    next.set(this.buf.subarray(0, this.n));
    this.buf = next;
  }
  push(b: number): void {
    this.ensure(1);
    this.buf[this.n++] = b & 0xff;
  }
  copy(src: Uint8Array, from: number, len: number): void {
    this.ensure(len);
    this.buf.set(src.subarray(from, from + len), this.n);
    this.n += len;
  }
}

const le32 = (a: Uint8Array, i: number): number => (a[i] | (a[i + 1] << 8) | (a[i + 2] << 16) | (a[i + 3] << 24)) >>> 0;

/** Emits a literal run of length t (t >= 1) after the op it follows. */
function literalRun(out: Out, src: Uint8Array, from: number, t: number): void {
  if (t <= 3) out.buf[out.n - 2] |= t;
  else if (t <= 18) out.push(t - 3);
  else {
    let tt = t - 18;
    out.push(0);
    while (tt > 255) {
      tt -= 255;
      out.push(0);
    }
    out.push(tt);
  }
  out.copy(src, from, t);
}

/** An M3 or M4 match: marker with the length (or a zero-run long length), then the 14 offset bits. */
function farMatch(out: Out, marker: number, maxLen: number, mLen: number, mOff: number): void {
  if (mLen <= maxLen) out.push(marker | (mLen - 2));
  else {
    let rest = mLen - maxLen;
    out.push(marker);
    while (rest > 255) {
      rest -= 255;
      out.push(0);
    }
    out.push(rest);
  }
  out.push(mOff << 2);
  out.push(mOff >> 6);
}

/** Compresses in[start, start+len); `ti` literals before `start` are still pending. Returns the literals left at the end. */
function compressPiece(src: Uint8Array, start: number, len: number, ti: number, out: Out, dict: Uint16Array): number {
  const ipEnd = start + len - 20;
  let ip = start;
  let ii = ip;
  ip += ti < 4 ? 4 - ti : 0;
  for (;;) {
    let mPos: number;
    // find a match
    for (;;) {
      ip += 1 + ((ip - ii) >> 5);
      if (ip >= ipEnd) return start + len - (ii - ti);
      const dv = le32(src, ip);
      const dindex = (Math.imul(dv, 0x1824429d) >>> (32 - D_BITS)) & D_MASK;
      mPos = start + dict[dindex];
      dict[dindex] = ip - start;
      if (dv === le32(src, mPos)) break;
    }
    ii -= ti;
    ti = 0;
    const t = ip - ii;
    if (t !== 0) literalRun(out, src, ii, t);
    let mLen = 4;
    while (src[ip + mLen] === src[mPos + mLen]) {
      mLen++;
      if (ip + mLen >= ipEnd) break;
    }
    let mOff = ip - mPos;
    ip += mLen;
    ii = ip;
    if (mLen <= M2_MAX_LEN && mOff <= M2_MAX_OFFSET) {
      mOff -= 1;
      out.push(((mLen - 1) << 5) | ((mOff & 7) << 2));
      out.push(mOff >> 3);
    } else if (mOff <= M3_MAX_OFFSET) {
      farMatch(out, M3_MARKER, M3_MAX_LEN, mLen, mOff - 1);
    } else {
      mOff -= 0x4000;
      farMatch(out, M4_MARKER | ((mOff >> 11) & 8), M4_MAX_LEN, mLen, mOff);
    }
  }
}

/** LZO1X-1 compression of a whole buffer (one lzop block). */
export function lzo1xCompress(src: Uint8Array): Uint8Array {
  const out = new Out(src.length + (src.length >> 4) + 64 + 3);
  const dict = new Uint16Array(1 << D_BITS);
  let ip = 0;
  let l = src.length;
  let t = 0;
  while (l > 20) {
    const ll = Math.min(l, PIECE);
    dict.fill(0);
    t = compressPiece(src, ip, ll, t, out, dict);
    ip += ll;
    l -= ll;
  }
  t += l;
  if (t > 0) {
    const ii = src.length - t;
    if (out.n === 0 && t <= 238) {
      out.push(17 + t);
      out.copy(src, ii, t);
    } else literalRun(out, src, ii, t);
  }
  out.push(M4_MARKER | 1);
  out.push(0);
  out.push(0);
  return out.buf.slice(0, out.n);
}

function corrupt(what: string): never {
  throw new Error(`corrupt LZO data: ${what}`);
}

/** LZO1X decompression of one block whose uncompressed size is known (lzop stores it). */
export function lzo1xDecompress(src: Uint8Array, size: number): Uint8Array {
  const out = new Uint8Array(size);
  let op = 0;
  let ip = 0;
  let t = 0;
  const need = (n: number): void => {
    if (op + n > size) corrupt('output overrun');
  };
  const copyLiterals = (n: number): void => {
    need(n);
    if (ip + n > src.length) corrupt('input overrun');
    out.set(src.subarray(ip, ip + n), op);
    op += n;
    ip += n;
  };
  const copyMatch = (from: number, n: number): void => {
    if (from < 0) corrupt('lookbehind overrun');
    need(n);
    for (let k = 0; k < n; k++) out[op++] = out[from + k]!; // may overlap: byte by byte
  };
  const longLength = (base: number): number => {
    let n = 0;
    while (src[ip] === 0) {
      n += 255;
      ip++;
      if (ip >= src.length) corrupt('input overrun');
    }
    return n + base + src[ip++];
  };

  // state: 0 = expect an instruction after a match (or at start); 'first' handled below
  let state: 'instr' | 'afterLiterals' | 'match' = 'instr';
  if (src[0] > 17) {
    t = src[ip++] - 17;
    if (t < 4) {
      copyLiterals(t);
      t = src[ip++]!;
      state = 'match';
    } else {
      copyLiterals(t);
      state = 'afterLiterals';
    }
  }
  for (;;) {
    if (state === 'instr') {
      t = src[ip++]!;
      if (t >= 16) state = 'match';
      else {
        if (t === 0) t = longLength(15);
        copyLiterals(t + 3);
        state = 'afterLiterals';
      }
      continue;
    }
    if (state === 'afterLiterals') {
      t = src[ip++]!;
      if (t >= 16) {
        state = 'match';
        continue;
      }
      // a 3-byte match just after a literal run
      const from = op - (1 + M2_MAX_OFFSET) - (t >> 2) - (src[ip++] << 2);
      copyMatch(from, 3);
    } else {
      let from: number;
      if (t >= 64) {
        from = op - 1 - ((t >> 2) & 7) - (src[ip++] << 3);
        copyMatch(from, (t >> 5) + 1);
      } else if (t >= 32) {
        let len = t & 31;
        if (len === 0) len = longLength(31);
        from = op - 1 - ((src[ip] >> 2) + (src[ip + 1] << 6));
        ip += 2;
        copyMatch(from, len + 2);
      } else if (t >= 16) {
        from = op - ((t & 8) << 11);
        let len = t & 7;
        if (len === 0) len = longLength(7);
        from -= (src[ip] >> 2) + (src[ip + 1] << 6);
        ip += 2;
        if (from === op) {
          if (op !== size) corrupt(`stream ended after ${op} of ${size} bytes`);
          return out;
        }
        from -= 0x4000;
        copyMatch(from, len + 2);
      } else {
        from = op - 1 - (t >> 2) - (src[ip++] << 2);
        copyMatch(from, 2);
      }
    }
    // trailing literals of the match, in the low bits of the byte two before
    t = src[ip - 2] & 3;
    if (t === 0) {
      state = 'instr';
      continue;
    }
    copyLiterals(t);
    t = src[ip++]!;
    state = 'match';
    if (ip > src.length) corrupt('input overrun');
  }
}
