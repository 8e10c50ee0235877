import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import type { Command } from 'commander';
import { ConfigError, ErrorCode } from '@tideway/common';
import { collect } from './options.js';

/** The certificates `tideway cluster certs` writes besides the CA: one per role, and the CLI's. */
export const CERT_ROLES = ['coordinator', 'resource-manager', 'worker', 'client'] as const;

const DAY_MS = 86_400_000;

/** A `--client` name: it is the certificate's CN and its file name. */
const CLIENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** A CA's PEM certificate and key, to sign with. */
export interface SigningCa {
  readonly cert: string;
  readonly key: string;
}

function validity(days: number): { notBeforeDate: Date; notAfterDate: Date } {
  return { notBeforeDate: new Date(Date.now() - 60_000), notAfterDate: new Date(Date.now() + days * DAY_MS) };
}

/**
 * Writes a cluster CA and a certificate signed by it for each role (for tideway.tls): every
 * certificate serves and authenticates (serverAuth and clientAuth), for the hosts given (and
 * localhost, 127.0.0.1). For a test or small cluster; a real one uses its own PKI.
 * Client certificates for `clients` (writeClientCerts) are signed by the same CA.
 */
export async function writeClusterCerts(
  dir: string,
  hosts: string[],
  days: number,
  cn = 'Tideway cluster CA',
  clients: readonly string[] = [],
): Promise<string[]> {
  // Loaded here: selfsigned brings a few hundred modules no other command needs.
  const { generate } = await import('selfsigned');
  mkdirSync(dir, { recursive: true });
  const { notBeforeDate, notAfterDate } = validity(days);
  const ca = await generate([{ name: 'commonName', value: cn }], {
    keySize: 2048,
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  const written = [write(dir, 'ca.pem', ca.cert), write(dir, 'ca-key.pem', ca.private, 0o600)];
  const altNames = [...new Set(['localhost', '127.0.0.1', ...hosts])].map((h) =>
    isIP(h) ? { type: 7 as const, ip: h } : { type: 2 as const, value: h },
  );
  for (const role of CERT_ROLES) {
    const cert = await generate([{ name: 'commonName', value: `tideway-${role}` }], {
      keySize: 2048,
      algorithm: 'sha256',
      notBeforeDate,
      notAfterDate,
      ca: { key: ca.private, cert: ca.cert },
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
        { name: 'extKeyUsage', serverAuth: true, clientAuth: true },
        { name: 'subjectAltName', altNames },
      ],
    });
    written.push(write(dir, `${role}.pem`, cert.cert), write(dir, `${role}-key.pem`, cert.private, 0o600));
  }
  written.push(...(await writeClientCerts(dir, clients, days, { cert: ca.cert, key: ca.private })));
  return written;
}

/**
 * Writes `<name>.pem` and `<name>-key.pem` for each name: a client certificate (clientAuth
 * only, no host names) whose subject CN is the name, signed by `ca`; tideway.auth.certificates
 * maps such a CN to a role.
 */
export async function writeClientCerts(dir: string, names: readonly string[], days: number, ca: SigningCa): Promise<string[]> {
  const { generate } = await import('selfsigned');
  mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  for (const name of names) {
    const cert = await generate([{ name: 'commonName', value: name }], {
      keySize: 2048,
      algorithm: 'sha256',
      ...validity(days),
      ca: { key: ca.key, cert: ca.cert },
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
        { name: 'extKeyUsage', clientAuth: true },
      ],
    });
    written.push(write(dir, `${name}.pem`, cert.cert), write(dir, `${name}-key.pem`, cert.private, 0o600));
  }
  return written;
}

/** The options of `tideway cluster certs`, as commander gives them. */
export interface CertsOptions {
  out: string;
  host: string[];
  days: string;
  client: string[];
  ca?: string;
}

/** The options checked: days a whole number, --client names usable, --ca only with --client and without --host. */
export function checkCertsOptions(opts: CertsOptions): { days: number; clients: string[] } {
  const days = Number(opts.days);
  if (!Number.isInteger(days) || days < 1)
    throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `--days ${opts.days}: expected a whole number of days, at least 1`);
  const clients = clientNames(opts.client);
  if (opts.ca !== undefined && clients.length === 0)
    throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, '--ca: give the certificates to sign with --client <name>');
  if (opts.ca !== undefined && opts.host.length > 0)
    throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, '--host: client certificates of --ca carry no host names');
  return { days, clients };
}

/** The `--client` names, refused when one is no good as a CN and file name, or clashes. */
function clientNames(names: string[]): string[] {
  const reserved = new Set<string>([...CERT_ROLES, 'ca']);
  for (const name of names) {
    if (!CLIENT_NAME.test(name))
      throw new ConfigError(
        ErrorCode.CONFIG_BAD_VALUE,
        `--client ${name}: expected letters, digits, '.', '_' or '-' (at most 64), e.g. alice`,
      );
    if (reserved.has(name))
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `--client ${name}: the name of a file this command writes; choose another`);
  }
  if (new Set(names).size !== names.length) throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, '--client: a name is given twice');
  return names;
}

/** The CA in `dir` (ca.pem and ca-key.pem, as this command writes them), for --ca. */
function readCa(dir: string): SigningCa {
  const cert = join(dir, 'ca.pem');
  const key = join(dir, 'ca-key.pem');
  for (const f of [cert, key])
    if (!existsSync(f))
      throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `--ca ${dir}: no ${f} (the folder of an earlier tideway cluster certs)`);
  return { cert: readFileSync(cert, 'utf8'), key: readFileSync(key, 'utf8') };
}

function write(dir: string, name: string, pem: string, mode = 0o644): string {
  const file = join(dir, name);
  writeFileSync(file, pem, { mode });
  return file;
}

/** `tideway cluster certs --out DIR [--host H]... [--days N] [--client NAME]... [--ca DIR]`. */
export function registerCertsCommand(cluster: Command): void {
  cluster
    .command('certs')
    .description(
      `write a cluster CA and a certificate per role (${CERT_ROLES.join(', ')}) signed by it, for tideway.tls (mutual TLS); --client adds client certificates for tideway.auth.certificates`,
    )
    .requiredOption('--out <dir>', 'folder to write ca.pem, ca-key.pem, <role>.pem and <role>-key.pem into')
    .option(
      '--host <name>',
      'a host name or IP address the certificates are valid for, besides localhost and 127.0.0.1 (repeatable)',
      collect,
      [],
    )
    .option('--days <n>', 'days the certificates are valid', '365')
    .option(
      '--client <name>',
      'also write <name>.pem and <name>-key.pem: a client certificate with the subject CN <name>, for tideway.auth.certificates (repeatable)',
      collect,
      [],
    )
    .option('--ca <dir>', 'sign the --client certificates with the CA in <dir> (ca.pem, ca-key.pem) and write only those')
    .action(async (opts: CertsOptions) => {
      const { days, clients } = checkCertsOptions(opts);
      const written =
        opts.ca === undefined
          ? await writeClusterCerts(opts.out, opts.host, days, undefined, clients)
          : await writeClientCerts(opts.out, clients, days, readCa(opts.ca));
      for (const f of written) process.stdout.write(`${f}\n`);
    });
}
