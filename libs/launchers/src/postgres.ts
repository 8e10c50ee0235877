import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync, chownSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { ServerProcess, startOnFreePort } from './server-process.js';
import { makeServerDir, randomPassword, runningAsRoot, systemUser, type TestDatabaseServer } from './test-server.js';

export interface PostgresOptions {
  /** wal_level=logical with replication slots and WAL senders, for CDC tests. */
  readonly logical?: boolean;
  /** Database created for the caller (default `tideway`). */
  readonly database?: string;
  /** Password of the `postgres` superuser over TCP (default: random). */
  readonly password?: string;
  /** More `-c name=value` settings. */
  readonly settings?: Readonly<Record<string, string | number>>;
}

/** The folder of PostgreSQL's server binaries: $TIDEWAY_PG_BIN, Debian's 15, or the newest installed. */
export function postgresBinDir(): string {
  const fromEnv = process.env.TIDEWAY_PG_BIN;
  if (fromEnv) return fromEnv;
  if (existsSync('/usr/lib/postgresql/15/bin/postgres')) return '/usr/lib/postgresql/15/bin';
  const versions = existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql').filter((v) => /^\d+$/.test(v)) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  for (const v of versions) if (existsSync(`/usr/lib/postgresql/${v}/bin/postgres`)) return `/usr/lib/postgresql/${v}/bin`;
  throw new Error('PostgreSQL server binaries are not installed (no /usr/lib/postgresql/*/bin/postgres): run scripts/ensure-servers.sh');
}

/** Output plugins a logical test server accepts besides the built-in ones (Postgres-CDC decodes decoderbufs too). */
const EXTRA_OUTPUT_PLUGINS = ['decoderbufs'];
const outputPluginSettings = new Map<string, Record<string, string>>();

/**
 * Debian's newer PostgreSQL builds take only the output plugins that `output_plugin_libraries`
 * lists (pgoutput and test_decoding by default), superusers included: a logical test server
 * adds the installed extra plugins. Servers without the setting take any installed plugin.
 */
function outputPluginSetting(bin: string): Record<string, string> {
  let setting = outputPluginSettings.get(bin);
  if (!setting) {
    const described = execFileSync(join(bin, 'postgres'), ['--describe-config'], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
    const libDir = join(bin, '..', 'lib');
    const extra = EXTRA_OUTPUT_PLUGINS.filter((p) => existsSync(join(libDir, `${p}.so`)));
    setting = /^output_plugin_libraries\t/m.test(described)
      ? { output_plugin_libraries: ['pgoutput', 'test_decoding', ...extra].join(',') }
      : {};
    outputPluginSettings.set(bin, setting);
  }
  return setting;
}

/**
 * Starts a private PostgreSQL on a free 127.0.0.1 port, in a temp folder, and waits until it
 * accepts connections. TCP logins need the password (scram-sha-256) so that tests of bad
 * credentials mean something; the Unix socket in the folder trusts everyone.
 */
export async function startPostgres(opts: PostgresOptions = {}): Promise<TestDatabaseServer> {
  const bin = postgresBinDir();
  // initdb and postgres refuse to run as root.
  const owner = runningAsRoot() ? systemUser('postgres') : undefined;
  const dir = makeServerDir('pg', owner);
  const user = 'postgres';
  const password = opts.password ?? randomPassword();
  const database = opts.database ?? 'tideway';
  const pwfile = join(dir, 'pwfile');
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (owner) chownSync(pwfile, owner.uid, owner.gid);
  const dataDir = join(dir, 'data');
  try {
    execFileSync(
      join(bin, 'initdb'),
      [
        '-D',
        dataDir,
        '-U',
        user,
        '-A',
        'trust',
        '--auth-host=scram-sha-256',
        `--pwfile=${pwfile}`,
        '--no-sync',
        '-E',
        'UTF8',
        '--locale=C.UTF-8',
      ],
      { uid: owner?.uid, gid: owner?.gid, stdio: ['ignore', 'ignore', 'pipe'], cwd: dir },
    );
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString() ?? String(err);
    throw new Error(`initdb failed in ${dir}: ${stderr.trim()}`, { cause: err });
  }

  const settings: Record<string, string | number> = {
    listen_addresses: '127.0.0.1',
    fsync: 'off',
    synchronous_commit: 'off',
    full_page_writes: 'off',
    max_prepared_transactions: 20,
    ...(opts.logical ? { wal_level: 'logical', max_replication_slots: 10, max_wal_senders: 10, ...outputPluginSetting(bin) } : {}),
    ...opts.settings,
  };

  const { port, server } = await startOnFreePort(
    (port) => {
      const args = ['-D', dataDir, '-p', String(port), '-k', dir];
      for (const [k, v] of Object.entries(settings)) args.push('-c', `${k}=${v}`);
      return ServerProcess.start({
        name: 'PostgreSQL',
        command: join(bin, 'postgres'),
        args,
        dir,
        logFile: join(dir, 'postgres.log'),
        uid: owner?.uid,
        gid: owner?.gid,
        stopSignal: 'SIGQUIT',
      });
    },
    async (port) => {
      const client = new pg.Client({ host: '127.0.0.1', port, user, password, database: 'postgres', connectionTimeoutMillis: 2000 });
      try {
        await client.connect();
        await client.query('SELECT 1');
      } finally {
        await client.end().catch(() => undefined);
      }
    },
  );
  const connect = { host: '127.0.0.1', port, user, password, database: 'postgres' };
  if (database !== 'postgres') {
    const client = new pg.Client(connect);
    await client.connect();
    try {
      await client.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
    } finally {
      await client.end();
    }
  }
  return {
    host: '127.0.0.1',
    port,
    user,
    password,
    database,
    dir,
    url: `postgres://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(database)}`,
    jdbcUrl: `jdbc:postgresql://127.0.0.1:${port}/${database}`,
    stop: () => server.stop(),
  };
}
