import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Firebird from 'node-firebird';
import { ServerProcess, startOnFreePort } from './server-process.js';
import { makeServerDir, randomPassword, type TestDatabaseServer } from './test-server.js';

/** Debian's firebird3.0-server: the server binary, and the folder of its plugins, intl and messages. */
const SERVER = '/usr/sbin/firebird';
const ISQL = '/usr/bin/isql-fb';
const LIB_DIRS = ['/usr/lib/x86_64-linux-gnu/firebird/3.0', '/usr/lib/aarch64-linux-gnu/firebird/3.0'];

/** A private Firebird server: a TestDatabaseServer whose `database` is the database file's path. */
export interface FirebirdServer extends TestDatabaseServer {
  /** Creates another database file next to the first (default character set UTF8) and returns its path. */
  createDatabase(name: string): Promise<string>;
}

export interface FirebirdOptions {
  /** See ServerProcessOptions.ownerPid (a server shared by the test files of one vitest run). */
  readonly ownerPid?: number;
}

/** Why the server cannot start here, or undefined. */
export function firebirdMissing(): string | undefined {
  if (!existsSync(SERVER) || !existsSync(ISQL) || !LIB_DIRS.some((d) => existsSync(join(d, 'plugins')))) {
    return `Firebird 3 is not installed (looked for ${SERVER}, ${ISQL} and ${LIB_DIRS[0]}): run scripts/ensure-servers.sh`;
  }
  return undefined;
}

/** Whether node-firebird logs in (see startFirebird). */
async function driverLogsIn(port: number, user: string, password: string, database: string): Promise<boolean> {
  try {
    const db = await Firebird.attachAsync({ host: '127.0.0.1', port, database, user, password, encoding: 'UTF8' });
    await db.detachAsync();
    return true;
  } catch (err) {
    if (/user name and password are not defined/i.test(String(err))) return false;
    throw err;
  }
}

/** isql-fb with the private root's environment; `sql` goes in on stdin. */
function isql(env: NodeJS.ProcessEnv, args: readonly string[], sql: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(ISQL, ['-q', ...args], { env, timeout: 20_000 }, (err, stdout, stderr) => {
      // isql-fb exits 0 even when a statement failed; the error text is on stderr.
      if (err || stderr.trim() !== '') reject(new Error(`isql-fb failed: ${(stderr || err?.message || '').trim()}`));
      else resolve(stdout);
    });
    child.stdin?.end(sql);
  });
}

const sqlText = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * Starts a private Firebird 3 SuperServer on a free 127.0.0.1 port: its own root folder (the
 * FIREBIRD variable points there) with its own firebird.conf, databases.conf, security database
 * (SYSDBA with a random password, made by isql-fb in embedded mode) and lock folder, and the
 * system's plugins, intl and message files linked in. Databases may only live in its data
 * folder (DatabaseAccess = Restrict). Never the machine's own service (port 3050).
 */
export async function startFirebird(opts: FirebirdOptions = {}, dir = makeServerDir('firebird')): Promise<FirebirdServer> {
  const missing = firebirdMissing();
  if (missing) throw new Error(missing);
  const lib = LIB_DIRS.find((d) => existsSync(join(d, 'plugins')))!;
  const dataDir = join(dir, 'data');
  for (const sub of ['data', 'lock', 'tmp']) mkdirSync(join(dir, sub), { recursive: true });
  for (const f of ['plugins', 'intl', 'UDF', 'firebird.msg', 'plugins.conf']) {
    if (existsSync(join(lib, f)) && !existsSync(join(dir, f))) symlinkSync(join(lib, f), join(dir, f));
  }
  const security = join(dir, 'security3.fdb');
  writeFileSync(join(dir, 'databases.conf'), `security.db = ${security}\n`);
  const env = { ...process.env, FIREBIRD: dir, FIREBIRD_LOCK: join(dir, 'lock'), FIREBIRD_TMP: join(dir, 'tmp') };
  const conf = (port: number) =>
    [
      `RemoteServicePort = ${port}`,
      'RemoteBindAddress = 127.0.0.1',
      'ServerMode = Super',
      `DatabaseAccess = Restrict ${dataDir}`,
      `SecurityDatabase = ${security}`,
      'AuthServer = Srp',
      'UserManager = Srp',
      'WireCrypt = Enabled',
      'UdfAccess = None',
      'DefaultDbCachePages = 256',
      '',
    ].join('\n');
  writeFileSync(join(dir, 'firebird.conf'), conf(3050));
  const user = 'SYSDBA';
  let password = randomPassword().slice(0, 16);
  const database = join(dataDir, 'tideway.fdb');
  // Embedded: the security database gets its SYSDBA, then the first database is created.
  await isql(
    env,
    ['-user', user],
    `CREATE DATABASE ${sqlText(security)};\nCREATE USER ${user} PASSWORD ${sqlText(password)};\nCOMMIT;\nEXIT;\n`,
  );
  await isql(env, ['-user', user], `CREATE DATABASE ${sqlText(database)} DEFAULT CHARACTER SET UTF8;\nCOMMIT;\nEXIT;\n`);

  const { port, server } = await startOnFreePort(
    (port) => {
      writeFileSync(join(dir, 'firebird.conf'), conf(port));
      return ServerProcess.start({
        name: 'Firebird',
        command: SERVER,
        args: [],
        dir,
        env,
        logFile: join(dir, 'server.log'),
        stopSignal: 'SIGTERM',
        ownerPid: opts.ownerPid,
      });
    },
    // A remote login through the server (not embedded: no FIREBIRD in the client's environment).
    async (port) => {
      await isql(
        { ...process.env, FIREBIRD: undefined },
        ['-user', user, '-password', password, `127.0.0.1/${port}:${database}`],
        'SELECT 1 FROM RDB$DATABASE;\nEXIT;\n',
      );
    },
  );
  // node-firebird 2.17's SRP client fails the login of about one SRP user in twenty (the
  // server's salt and verifier decide, so a retry fails too; decision 0075): a new password
  // gets a new salt, until the Jdbc connector's driver logs in.
  for (let attempt = 1; !(await driverLogsIn(port, user, password, database)); attempt++) {
    if (attempt === 10) {
      await server.stop();
      throw new Error('node-firebird could not log in to the private Firebird server with 10 passwords in a row');
    }
    const next = randomPassword().slice(0, 16);
    await isql(
      { ...process.env, FIREBIRD: undefined },
      ['-user', user, '-password', password, `127.0.0.1/${port}:${database}`],
      `ALTER USER ${user} PASSWORD ${sqlText(next)};\nCOMMIT;\nEXIT;\n`,
    );
    password = next;
  }
  return handle({ port, password, database, dir }, () => server.stop());
}

/** The server as the tests see it, from where it listens and how to log in. */
function handle(info: SharedInfo, stop: () => Promise<void>): FirebirdServer {
  const { port, password, database, dir } = info;
  const user = 'SYSDBA';
  const clientEnv = { ...process.env, FIREBIRD: undefined };
  return {
    host: '127.0.0.1',
    port,
    user,
    password,
    database,
    dir,
    url: `firebird://${user}:${password}@127.0.0.1:${port}/${database}`,
    jdbcUrl: `jdbc:firebirdsql://127.0.0.1:${port}/${database}`,
    createDatabase: async (name: string) => {
      const path = join(dir, 'data', `${name}.fdb`);
      await isql(
        clientEnv,
        ['-user', user, '-password', password],
        `CREATE DATABASE ${sqlText(`127.0.0.1/${port}:${path}`)} DEFAULT CHARACTER SET UTF8;\nCOMMIT;\nEXIT;\n`,
      );
      return path;
    },
    stop,
  };
}

let shared: Promise<FirebirdServer> | undefined;

/** What the first test file writes for the others: where the shared server listens and how to log in. */
interface SharedInfo {
  readonly port: number;
  readonly password: string;
  readonly database: string;
  readonly dir: string;
}

/**
 * One Firebird server shared by every test file of this vitest run: the first file that asks
 * starts it, the others wait for its address. It lives until the vitest process ends (a
 * watchdog ends it then); tests create their own databases or tables with unique names. stop()
 * of the shared server does nothing. Outside vitest it belongs to this process.
 */
export function sharedFirebird(): Promise<FirebirdServer> {
  shared ??= openShared();
  return shared;
}

async function openShared(): Promise<FirebirdServer> {
  const owner = process.env.VITEST ? process.ppid : process.pid;
  const root = join(tmpdir(), `tideway-firebird-shared-${owner}`);
  const infoFile = join(root, 'server.json');
  const failed = join(root, 'failed');
  let mine = false;
  try {
    mkdirSync(root);
    mine = true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  let info: SharedInfo;
  if (mine) {
    try {
      const s = await startFirebird({ ownerPid: owner }, root);
      info = { port: s.port, password: s.password, database: s.database, dir: s.dir };
      writeFileSync(`${infoFile}.tmp`, JSON.stringify(info));
      renameSync(`${infoFile}.tmp`, infoFile);
    } catch (err) {
      mkdirSync(root, { recursive: true });
      writeFileSync(failed, err instanceof Error ? err.message : String(err));
      throw err;
    }
  } else {
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (existsSync(infoFile)) break;
      if (existsSync(failed)) throw new Error(`the shared Firebird server did not start: ${readFileSync(failed, 'utf8')}`);
      if (Date.now() > deadline) throw new Error(`the shared Firebird server did not start within 120 s (${root})`);
      await new Promise((r) => setTimeout(r, 200));
    }
    info = JSON.parse(readFileSync(infoFile, 'utf8')) as SharedInfo;
  }
  return handle(info, async () => undefined);
}
