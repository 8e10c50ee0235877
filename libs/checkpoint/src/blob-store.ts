/**
 * The few object operations checkpoint storage needs, so the write protocol is written once
 * for a local directory and for S3. Keys are '/'-separated and relative to the store's root.
 */
export interface BlobStore {
  /** A description for messages, e.g. `local directory /tmp/x` or `s3://bucket/prefix`. */
  readonly description: string;
  /** Writes the whole object; after it resolves a `get` returns exactly these bytes. */
  put(key: string, bytes: Uint8Array): Promise<void>;
  /** The object's bytes, or undefined when it does not exist. */
  get(key: string): Promise<Uint8Array | undefined>;
  /** Every key that starts with `prefix` (a folder-like prefix ending in '/'). */
  list(prefix: string): Promise<string[]>;
  /** Deletes the keys; a key that does not exist is not an error. */
  delete(keys: readonly string[]): Promise<void>;
  /** Deletes every key under a folder-like prefix (ending in '/'). */
  deletePrefix(prefix: string): Promise<void>;
  /** Releases connections. */
  close(): Promise<void> | void;
}
