import { ConfigError, ErrorCode, TidewayError } from '@tideway/common';
import { CommitConflict, formatIdent, type IcebergCatalog, type LoadedTable, type TableIdent } from './catalog.js';
import { FileIO, type IcebergFileIO, S3_FILE_IO_KEYS } from './file-io.js';
import { currentSchema, defaultSpec, parseMetadataJson, stringifyMetadata, type TableMetadata } from './metadata.js';

/** The keys of a rest catalog's `iceberg.catalog.config` (Iceberg's RESTCatalog property names). */
export const REST_CATALOG_KEYS = [
  'type',
  'uri',
  'warehouse',
  'credential',
  'token',
  'oauth2-server-uri',
  'scope',
  'prefix',
  ...S3_FILE_IO_KEYS,
] as const;

/** A failed call: its HTTP status and the server's error (`{"error": {"message", "type", "code"}}`). */
class RestError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/** JSON text with bigints written as JSON integers (snapshot ids use 63 bits), as metadata files are. */
const jsonText = (body: unknown): string => stringifyMetadata(body as TableMetadata);

/**
 * Iceberg's REST catalog protocol (the OpenAPI spec of apache/iceberg's open-api/rest-catalog-open-api.yaml),
 * the few calls the sink needs, by hand over fetch: GET /v1/config (the server's defaults and
 * overrides: `prefix`, `warehouse`), load, create and drop a table, create a missing namespace,
 * and commit = POST .../tables/{table} with requirements (the table's uuid, its main ref's snapshot,
 * its current schema and last column id) and updates (add-schema, set-current-schema,
 * add-snapshot, set-snapshot-ref, set-properties) derived from the metadata the sink computed;
 * 409 (CommitFailedException) is a lost race: CommitConflict, redone by the committer on the
 * reloaded table. Auth: `token` (a bearer token) or `credential` (client_id:client_secret,
 * exchanged for a token by OAuth2 client credentials at `oauth2-server-uri`, by default the
 * catalog's /v1/oauth/tokens). Response bodies are parsed keeping 63-bit snapshot ids exact.
 */
export class RestCatalog implements IcebergCatalog {
  readonly description: string;
  readonly io: IcebergFileIO;
  private readonly uri: string;
  private config?: Promise<{ prefix: string; separator: string }>;
  private token?: Promise<string | undefined>;

  constructor(private readonly props: Readonly<Record<string, string>>) {
    const uri = props.uri ?? '';
    if (!/^https?:\/\/[^/]/i.test(uri)) {
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `iceberg.catalog.config: uri ${uri} is not an http(s) address of a REST catalog (http://host:port[/path]).`,
      );
    }
    this.uri = uri.replace(/\/+$/, '');
    this.description = `rest catalog at ${this.uri}`;
    this.io = new FileIO(props);
  }

  private async bearer(): Promise<string | undefined> {
    if (this.props.token) return this.props.token;
    if (!this.props.credential) return undefined;
    this.token ??= (async () => {
      const cred = this.props.credential;
      const colon = cred.indexOf(':');
      const form = new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: colon < 0 ? '' : cred.slice(0, colon),
        client_secret: colon < 0 ? cred : cred.slice(colon + 1),
        scope: this.props.scope ?? 'catalog',
      });
      const url = this.props['oauth2-server-uri'] ?? `${this.uri}/v1/oauth/tokens`;
      const res = await this.send(url, {
        method: 'POST',
        body: form.toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      const body = res.body as { access_token?: string } | undefined;
      if (!body?.access_token)
        throw new TidewayError(ErrorCode.EXTERNAL_SYSTEM, `The ${this.description} gave no access token at ${url} for the credential.`);
      return body.access_token;
    })();
    return this.token;
  }

  /** One HTTP call; a body that is not 2xx throws RestError, an unreachable server one sentence with the address. */
  private async send(
    url: string,
    init: { method: string; body?: string; headers?: Record<string, string> },
  ): Promise<{ status: number; body: unknown }> {
    let res: Response;
    try {
      res = await fetch(url, { ...init, signal: AbortSignal.timeout(60_000) });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new TidewayError(
        ErrorCode.EXTERNAL_SYSTEM,
        `The Iceberg ${this.description} cannot be reached (${init.method} ${url}): ${cause?.code ?? cause?.message ?? (err as Error).message}.`,
        { cause: err, retryable: true },
      );
    }
    const text = await res.text();
    // exact: a LoadTableResult's snapshot ids are past 2^53
    const body: unknown = text
      ? res.headers.get('content-type')?.includes('json') || /^\s*[{[]/.test(text)
        ? parseJsonExact(text)
        : text
      : undefined;
    if (!res.ok) {
      const e = (body as { error?: { message?: string; type?: string } } | undefined)?.error;
      throw new RestError(
        res.status,
        e?.type ?? '',
        `${init.method} ${url}: ${res.status} ${e?.type ?? res.statusText}${e?.message ? `: ${e.message}` : ''}`,
      );
    }
    return { status: res.status, body };
  }

  private async call(method: string, path: string, body?: unknown): Promise<unknown> {
    const { prefix } = await this.settings();
    const url = `${this.uri}/v1/${prefix ? `${encodeURIComponent(prefix)}/` : ''}${path}`;
    for (let fresh = false; ; fresh = true) {
      const token = await this.bearer();
      const headers: Record<string, string> = { accept: 'application/json' };
      if (token) headers.authorization = `Bearer ${token}`;
      if (body !== undefined) headers['content-type'] = 'application/json';
      try {
        return (await this.send(url, { method, headers, ...(body !== undefined ? { body: jsonText(body) } : {}) })).body;
      } catch (err) {
        // a token from the credential expired: exchange the credential again, once
        if (!(err instanceof RestError && err.status === 401 && this.props.credential && !this.props.token && !fresh)) throw err;
        this.token = undefined;
      }
    }
  }

  /** GET /v1/config: the server's defaults under the client's properties under its overrides. */
  private settings(): Promise<{ prefix: string; separator: string }> {
    this.config ??= (async () => {
      const token = await this.bearer();
      const q = this.props.warehouse ? `?warehouse=${encodeURIComponent(this.props.warehouse)}` : '';
      const { body } = await this.send(`${this.uri}/v1/config${q}`, {
        method: 'GET',
        headers: { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      });
      const c = (body ?? {}) as { defaults?: Record<string, string>; overrides?: Record<string, string> };
      const merged: Record<string, string | undefined> = { ...c.defaults, ...this.props, ...c.overrides };
      // namespace levels in a path: joined by the (URL-encoded) separator the server names, else the spec's 0x1F
      return { prefix: merged.prefix ?? '', separator: merged['namespace-separator'] ?? '%1F' };
    })();
    this.config.catch(() => {
      this.config = undefined; // an unreachable server is asked again next time
    });
    return this.config;
  }

  private async namespacePath(namespace: readonly string[]): Promise<string> {
    const { separator } = await this.settings();
    return `namespaces/${namespace.map(encodeURIComponent).join(separator)}`;
  }

  private async tablePath(ident: TableIdent): Promise<string> {
    return `${await this.namespacePath(ident.namespace)}/tables/${encodeURIComponent(ident.name)}`;
  }

  /** None: the server places new tables (a REST catalog's `warehouse` may be a name, not a folder). */
  defaultLocation(_ident: TableIdent): string {
    return '';
  }

  private loaded(body: unknown, where: string): LoadedTable {
    const r = body as { 'metadata-location'?: string; metadata?: unknown };
    if (!r?.metadata || !r['metadata-location']) {
      throw new TidewayError(
        ErrorCode.EXTERNAL_SYSTEM,
        `The ${this.description} answered ${where} without a table's metadata and metadata-location.`,
      );
    }
    return { metadata: parseMetadataJson(stringifyMetadata(r.metadata as TableMetadata)), metadataLocation: r['metadata-location'] };
  }

  async load(ident: TableIdent): Promise<LoadedTable | undefined> {
    try {
      return this.loaded(await this.call('GET', await this.tablePath(ident)), `the load of ${formatIdent(ident)}`);
    } catch (err) {
      if (err instanceof RestError && err.status === 404) return undefined;
      throw this.failure(err, `${formatIdent(ident)} cannot be loaded`);
    }
  }

  async create(ident: TableIdent, metadata: TableMetadata): Promise<LoadedTable> {
    const body = {
      name: ident.name,
      ...(metadata.location ? { location: metadata.location } : {}),
      schema: currentSchema(metadata),
      'partition-spec': defaultSpec(metadata),
      'write-order': { 'order-id': 0, fields: [] },
      properties: metadata.properties ?? {},
      'stage-create': false,
    };
    const path = `${await this.namespacePath(ident.namespace)}/tables`;
    for (let attempt = 0; ; attempt++) {
      try {
        return this.loaded(await this.call('POST', path, body), `the creation of ${formatIdent(ident)}`);
      } catch (err) {
        if (err instanceof RestError && err.status === 409) throw new CommitConflict(`${formatIdent(ident)} was created by another writer`);
        if (err instanceof RestError && err.status === 404 && err.type === 'NoSuchNamespaceException' && attempt === 0) {
          await this.createNamespace(ident.namespace);
          continue;
        }
        throw this.failure(err, `${formatIdent(ident)} cannot be created`);
      }
    }
  }

  private async createNamespace(namespace: readonly string[]): Promise<void> {
    try {
      await this.call('POST', 'namespaces', { namespace, properties: {} });
    } catch (err) {
      if (err instanceof RestError && err.status === 409) return; // created meanwhile
      throw this.failure(err, `namespace ${namespace.join('.')} cannot be created`);
    }
  }

  async commit(ident: TableIdent, base: LoadedTable, next: TableMetadata): Promise<LoadedTable> {
    const body = { identifier: { namespace: ident.namespace, name: ident.name }, ...commitChanges(base.metadata, next) };
    try {
      return this.loaded(await this.call('POST', await this.tablePath(ident), body), `the commit to ${formatIdent(ident)}`);
    } catch (err) {
      if (err instanceof RestError && err.status === 409) {
        throw new CommitConflict(
          `${formatIdent(ident)} moved past ${base.metadataLocation}: another writer committed first (${err.message})`,
        );
      }
      throw this.failure(err, `the commit to ${formatIdent(ident)} failed`);
    }
  }

  async drop(ident: TableIdent): Promise<void> {
    try {
      await this.call('DELETE', `${await this.tablePath(ident)}?purgeRequested=false`);
    } catch (err) {
      if (err instanceof RestError && err.status === 404) return;
      throw this.failure(err, `${formatIdent(ident)} cannot be dropped`);
    }
  }

  private failure(err: unknown, what: string): Error {
    if (!(err instanceof RestError)) return err as Error;
    // 5xx and 419 (authentication timeout) may pass; a 4xx is the request's fault
    return new TidewayError(ErrorCode.EXTERNAL_SYSTEM, `Iceberg ${this.description}: ${what}: ${err.message}.`, {
      cause: err,
      retryable: err.status >= 500 || err.status === 419,
    });
  }

  async close(): Promise<void> {}
}

/** JSON text parsed with integers past 2^53 as bigints (as metadata files are). */
function parseJsonExact(text: string): unknown {
  // parseMetadataJson keeps big integers wherever they are; its snapshot-id fix-ups only touch metadata-shaped objects
  return parseMetadataJson(text);
}

type Json = Record<string, unknown>;
const same = (a: unknown, b: unknown): boolean => a === b || (a !== undefined && b !== undefined && jsonText(a) === jsonText(b));

/**
 * The REST commit of `next` over `base`: requirements that hold only while nobody else committed
 * (the table's uuid, the snapshot of each ref the commit moves, the current schema and last column id), and the
 * updates that make `base` into `next`. A change the sink never makes (a new partition spec, a
 * sort order) is refused rather than dropped silently; snapshots gone from `next` are removed
 * (expire-snapshots).
 */
export function commitChanges(base: TableMetadata, next: TableMetadata): { requirements: Json[]; updates: Json[] } {
  const requirements: Json[] = [{ type: 'assert-table-uuid', uuid: base['table-uuid'] }];
  // every ref the commit moves must still be where the base had it (null: not there yet)
  for (const [name, ref] of Object.entries(next.refs ?? {})) {
    if (!same(ref, base.refs?.[name])) {
      requirements.push({ type: 'assert-ref-snapshot-id', ref: name, 'snapshot-id': base.refs?.[name]?.['snapshot-id'] ?? null });
    }
  }
  requirements.push({ type: 'assert-current-schema-id', 'current-schema-id': base['current-schema-id'] });
  const updates: Json[] = [];
  const oldSchemas = new Set(base.schemas.map((s) => s['schema-id']));
  for (const s of next.schemas) {
    if (!oldSchemas.has(s['schema-id'])) updates.push({ action: 'add-schema', schema: s, 'last-column-id': next['last-column-id'] });
  }
  if (updates.length) requirements.push({ type: 'assert-last-assigned-field-id', 'last-assigned-field-id': base['last-column-id'] });
  if (next['current-schema-id'] !== base['current-schema-id'])
    updates.push({ action: 'set-current-schema', 'schema-id': next['current-schema-id'] });
  if (!same(next['partition-specs'], base['partition-specs']) || next['default-spec-id'] !== base['default-spec-id']) {
    throw new Error('A commit that changes the partition spec is not supported by the rest catalog client.');
  }
  const oldSnapshots = new Set((base.snapshots ?? []).map((s) => s['snapshot-id']));
  for (const s of next.snapshots ?? []) {
    if (!oldSnapshots.has(s['snapshot-id'])) updates.push({ action: 'add-snapshot', snapshot: s });
  }
  const kept = new Set((next.snapshots ?? []).map((s) => s['snapshot-id']));
  const expired = [...oldSnapshots].filter((id) => !kept.has(id));
  // snapshot ids as JSON integers past 2^53: the body's serializer writes bigints whole
  if (expired.length) updates.push({ action: 'remove-snapshots', 'snapshot-ids': expired });
  for (const [name, ref] of Object.entries(next.refs ?? {})) {
    if (!same(ref, base.refs?.[name])) updates.push({ action: 'set-snapshot-ref', 'ref-name': name, ...ref });
  }
  const props = next.properties ?? {};
  const oldProps = base.properties ?? {};
  const set = Object.fromEntries(Object.entries(props).filter(([k, v]) => oldProps[k] !== v));
  if (Object.keys(set).length) updates.push({ action: 'set-properties', updates: set });
  const removed = Object.keys(oldProps).filter((k) => !(k in props));
  if (removed.length) updates.push({ action: 'remove-properties', removals: removed });
  return { requirements, updates };
}
