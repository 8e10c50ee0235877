import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import type { DescriptorProto, FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import { onFirstUse } from '@tideway/common';

/**
 * @bufbuild/protobuf's reflection API and its descriptor messages (about 50 modules), loaded when
 * the first index is made: only a reflection call needs them (docs/decisions/0090).
 */
const protobuf = onFirstUse<typeof import('@bufbuild/protobuf')>('@bufbuild/protobuf', import.meta.url);
const wkt = onFirstUse<typeof import('@bufbuild/protobuf/wkt')>('@bufbuild/protobuf/wkt', import.meta.url);

/** One file of the set: its name, the files it imports, and its bytes exactly as the compiler wrote them. */
interface IndexedFile {
  name: string;
  dependencies: string[];
  bytes: Uint8Array;
}

/**
 * A FileDescriptorSet (as `buf build` or `protoc --descriptor_set_out` writes it) indexed the way
 * server reflection asks: files by name, the file that defines a symbol, extensions by extendee.
 * Files are handed out as the compiler's own bytes, never re-encoded, so a strict client (the
 * C++ descriptor pool in Python's grpcio, grpcurl's Go one) gets what protoc would give it.
 */
export class DescriptorIndex {
  private readonly files = new Map<string, IndexedFile>();
  private readonly symbols = new Map<string, IndexedFile>();
  /** extendee full name -> field number -> the file declaring the extension. */
  private readonly extensions = new Map<string, Map<number, IndexedFile>>();

  /** Indexes a serialized FileDescriptorSet; a file name seen twice keeps its first copy. */
  constructor(set: Uint8Array) {
    for (const bytes of fileEntries(set)) {
      const proto = protobuf().fromBinary(wkt().FileDescriptorProtoSchema, bytes);
      if (this.files.has(proto.name)) continue;
      const file: IndexedFile = { name: proto.name, dependencies: proto.dependency, bytes };
      this.files.set(proto.name, file);
      this.indexSymbols(proto, file);
    }
  }

  private indexSymbols(proto: FileDescriptorProto, file: IndexedFile): void {
    const prefix = proto.package ? `${proto.package}.` : '';
    const add = (name: string) => this.symbols.set(name, file);
    const addExtension = (extendee: string, number: number) => {
      const key = extendee.replace(/^\./, '');
      const byNumber = this.extensions.get(key) ?? new Map<number, IndexedFile>();
      byNumber.set(number, file);
      this.extensions.set(key, byNumber);
    };
    const message = (scope: string, m: DescriptorProto) => {
      const name = `${scope}${m.name}`;
      add(name);
      for (const f of m.field) add(`${name}.${f.name}`);
      for (const o of m.oneofDecl) add(`${name}.${o.name}`);
      for (const e of m.enumType) {
        add(`${name}.${e.name}`);
        // Enum values are scoped beside their enum, as in C++.
        for (const v of e.value) add(`${name}.${v.name}`);
      }
      for (const x of m.extension) {
        add(`${name}.${x.name}`);
        addExtension(x.extendee, x.number);
      }
      for (const nested of m.nestedType) message(`${name}.`, nested);
    };
    for (const m of proto.messageType) message(prefix, m);
    for (const e of proto.enumType) {
      add(`${prefix}${e.name}`);
      for (const v of e.value) add(`${prefix}${v.name}`);
    }
    for (const s of proto.service) {
      add(`${prefix}${s.name}`);
      for (const m of s.method) add(`${prefix}${s.name}.${m.name}`);
    }
    for (const x of proto.extension) {
      add(`${prefix}${x.name}`);
      addExtension(x.extendee, x.number);
    }
  }

  /** Whether a fully qualified name (e.g. `tideway.v1.JobService`) is defined in the set. */
  has(symbol: string): boolean {
    return this.symbols.has(symbol);
  }

  /** The named file followed by every file it imports, transitively; undefined when unknown. */
  fileWithImports(name: string): Uint8Array[] | undefined {
    const first = this.files.get(name);
    return first && this.closure(first);
  }

  /** The file defining a symbol, with its imports; undefined when no file defines it. */
  fileContainingSymbol(symbol: string): Uint8Array[] | undefined {
    const file = this.symbols.get(symbol.replace(/^\./, ''));
    return file && this.closure(file);
  }

  /** The file declaring extension `number` of `extendee`, with its imports. */
  fileContainingExtension(extendee: string, number: number): Uint8Array[] | undefined {
    const file = this.extensions.get(extendee)?.get(number);
    return file && this.closure(file);
  }

  /** The extension numbers declared for a message; undefined when the message is unknown. */
  extensionNumbersOf(extendee: string): number[] | undefined {
    if (!this.symbols.has(extendee)) return undefined;
    return [...(this.extensions.get(extendee)?.keys() ?? [])].sort((a, b) => a - b);
  }

  /**
   * A file and its imports, the file first: reflection clients add what they receive to their
   * pool, and a pool refuses a file whose imports it has not seen, so they all go in one answer.
   */
  private closure(file: IndexedFile): Uint8Array[] {
    const out: IndexedFile[] = [];
    const seen = new Set<string>();
    const visit = (f: IndexedFile) => {
      if (seen.has(f.name)) return;
      seen.add(f.name);
      out.push(f);
      for (const dep of f.dependencies) {
        const d = this.files.get(dep);
        if (d) visit(d);
      }
    };
    visit(file);
    return out.map((f) => f.bytes);
  }
}

/** The raw bytes of each `file` (field 1) of a serialized FileDescriptorSet, in order. */
function fileEntries(set: Uint8Array): Uint8Array[] {
  const reader = new BinaryReader(set);
  const out: Uint8Array[] = [];
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 1 && wireType === WireType.LengthDelimited) out.push(reader.bytes());
    else reader.skip(wireType);
  }
  return out;
}
