import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A private server started for tests: where it listens and how to log in. */
export interface TestServer {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  /** Database name (PostgreSQL, MariaDB) or number (Redis, as text). */
  readonly database: string;
  /** A driver URL, e.g. `postgres://postgres:pw@127.0.0.1:41234/tideway`. */
  readonly url: string;
  /** The server's private folder (data, socket, log). */
  readonly dir: string;
  /** Ends the server and removes its folder. Safe to call twice. */
  stop(): Promise<void>;
}

/** A database server that the Jdbc connector can reach. */
export interface TestDatabaseServer extends TestServer {
  /** The JDBC URL SeaTunnel job configs use, e.g. `jdbc:postgresql://127.0.0.1:41234/tideway`. */
  readonly jdbcUrl: string;
}

/** A fresh private folder under the system temp dir, owned by `owner` when given. */
export function makeServerDir(prefix: string, owner?: { uid: number; gid: number }): string {
  const dir = mkdtempSync(join(tmpdir(), `tideway-${prefix}-`));
  if (owner) chownSync(dir, owner.uid, owner.gid);
  return dir;
}

/** Whether this process runs as root (servers then need an explicit user). */
export function runningAsRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** uid and gid of a system user, e.g. `postgres`. */
export function systemUser(name: string): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

/** A random password (letters and digits only: safe in URLs and SQL literals). */
export function randomPassword(): string {
  const alphabet = 'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  let out = '';
  for (let i = 0; i < 20; i++) out += alphabet[Math.floor(Math.random() * alphabet.length)];
  return out;
}

/** Whether a failed start looks like a lost race for the port (then retry on another). */
export function portWasTaken(log: string): boolean {
  return /address already in use|could not bind|bind on tcp\/ip port/i.test(log);
}
