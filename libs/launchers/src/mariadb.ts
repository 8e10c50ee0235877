import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { ServerProcess, startOnFreePort } from './server-process.js';
import { makeServerDir, randomPassword, runningAsRoot, type TestDatabaseServer } from './test-server.js';

export interface MariaDbOptions {
  /** Database created for the caller (default `tideway`). */
  readonly database?: string;
  /** Password of `root` over TCP (default: random). */
  readonly password?: string;
  /** More `--name=value` server options. */
  readonly settings?: Readonly<Record<string, string | number>>;
}

let serverIdCounter = 0;

function findBinary(candidates: readonly string[], what: string): string {
  for (const c of candidates) if (existsSync(c)) return c;
  throw new Error(`${what} is not installed (looked for ${candidates.join(', ')}): run scripts/ensure-servers.sh`);
}

/**
 * Starts a private MariaDB on a free 127.0.0.1 port, in a temp folder, with the binlog in ROW
 * format and full row images (what binlog CDC needs), and waits until it accepts connections.
 * `root` logs in over TCP with the password; the server runs with skip-name-resolve, so TCP
 * logins match `root'@'127.0.0.1'`.
 */
export async function startMariaDb(opts: MariaDbOptions = {}): Promise<TestDatabaseServer> {
  const installDb = findBinary(['/usr/bin/mariadb-install-db', '/usr/bin/mysql_install_db'], 'mariadb-install-db');
  const mariadbd = findBinary(['/usr/sbin/mariadbd', '/usr/sbin/mysqld'], 'mariadbd');
  const dir = makeServerDir('mariadb');
  const dataDir = join(dir, 'data');
  const user = 'root';
  const password = opts.password ?? randomPassword();
  const database = opts.database ?? 'tideway';
  const asRoot = runningAsRoot();
  // Its temporary tables go in the server's own folder, as the server's do, not in the shared
  // /tmp: a bootstrap there once failed beside other test servers ("Could not remove temporary
  // table '/tmp/#sql-temptable-...'", then "Unknown table 'mysql.tmp_proxies_priv'").
  try {
    execFileSync(
      installDb,
      [
        '--no-defaults',
        `--datadir=${dataDir}`,
        `--tmpdir=${dir}`,
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
        ...(asRoot ? ['--user=root'] : []),
      ],
      { stdio: ['ignore', 'ignore', 'pipe'], cwd: dir },
    );
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString() ?? String(err);
    throw new Error(`mariadb-install-db failed in ${dir}: ${stderr.trim()}`, { cause: err });
  }
  // Runs at every start with full privileges, one statement per line: the TCP root login
  // (mariadb-install-db creates root@127.0.0.1 without a password) and the caller's database.
  const initFile = join(dir, 'init.sql');
  writeFileSync(
    initFile,
    [
      `CREATE USER IF NOT EXISTS 'root'@'127.0.0.1';`,
      `ALTER USER 'root'@'127.0.0.1' IDENTIFIED BY '${password}';`,
      `GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;`,
      `CREATE DATABASE IF NOT EXISTS \`${database.replace(/`/g, '``')}\`;`,
    ].join('\n'),
  );
  const serverId = (process.pid % 100_000) * 100 + (++serverIdCounter % 100) + 1;
  const settings: Record<string, string | number> = {
    'bind-address': '127.0.0.1',
    'log-bin': join(dataDir, 'binlog'),
    'binlog-format': 'ROW',
    'binlog-row-image': 'FULL',
    'server-id': serverId,
    'character-set-server': 'utf8mb4',
    'collation-server': 'utf8mb4_general_ci',
    'innodb-buffer-pool-size': '128M',
    'innodb-flush-log-at-trx-commit': 2,
    'sync-binlog': 0,
    'innodb-doublewrite': 0,
    ...opts.settings,
  };

  const { port, server } = await startOnFreePort(
    (port) => {
      const args = [
        '--no-defaults',
        `--datadir=${dataDir}`,
        `--port=${port}`,
        `--socket=${join(dir, 'mysqld.sock')}`,
        `--pid-file=${join(dir, 'mysqld.pid')}`,
        `--tmpdir=${dir}`,
        `--init-file=${initFile}`,
        '--skip-name-resolve',
        ...(asRoot ? ['--user=root'] : []),
      ];
      for (const [k, v] of Object.entries(settings)) args.push(`--${k}=${v}`);
      return ServerProcess.start({
        name: 'MariaDB',
        command: mariadbd,
        args,
        dir,
        logFile: join(dir, 'mariadb.log'),
        stopSignal: 'SIGKILL',
      });
    },
    async (port) => {
      const conn = await mysql.createConnection({ host: '127.0.0.1', port, user, password, database, connectTimeout: 2000 });
      try {
        await conn.query('SELECT 1');
      } finally {
        await conn.end().catch(() => undefined);
      }
    },
  );
  return {
    host: '127.0.0.1',
    port,
    user,
    password,
    database,
    dir,
    url: `mysql://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(database)}`,
    jdbcUrl: `jdbc:mysql://127.0.0.1:${port}/${database}`,
    stop: () => server.stop(),
  };
}
