import { mkdirSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import type { Command } from 'commander';
import { ConfigError, ErrorCode } from '@tideway/common';
import { collect } from './options.js';

/** The certificates `tideway cluster certs` writes besides the CA: one per role, and the CLI's. */
export const CERT_ROLES = ['coordinator', 'resource-manager', 'worker', 'client'] as const;

const DAY_MS = 86_400_000;

/**
 * Writes a cluster CA and a certificate signed by it for each role (for tideway.tls): every
 * certificate serves and authenticates (serverAuth and clientAuth), for the hosts given (and
 * localhost, 127.0.0.1). For a test or small cluster; a real one uses its own PKI.
 */
export async function writeClusterCerts(dir: string, hosts: string[], days: number, cn = 'Tideway cluster CA'): Promise<string[]> {
  // Loaded here: selfsigned brings a few hundred modules no other command needs.
  const { generate } = await import('selfsigned');
  mkdirSync(dir, { recursive: true });
  const notBeforeDate = new Date(Date.now() - 60_000);
  const notAfterDate = new Date(Date.now() + days * DAY_MS);
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
  return written;
}

function write(dir: string, name: string, pem: string, mode = 0o644): string {
  const file = join(dir, name);
  writeFileSync(file, pem, { mode });
  return file;
}

/** `tideway cluster certs --out DIR [--host H]... [--days N]`. */
export function registerCertsCommand(cluster: Command): void {
  cluster
    .command('certs')
    .description(`write a cluster CA and a certificate per role (${CERT_ROLES.join(', ')}) signed by it, for tideway.tls (mutual TLS)`)
    .requiredOption('--out <dir>', 'folder to write ca.pem, ca-key.pem, <role>.pem and <role>-key.pem into')
    .option(
      '--host <name>',
      'a host name or IP address the certificates are valid for, besides localhost and 127.0.0.1 (repeatable)',
      collect,
      [],
    )
    .option('--days <n>', 'days the certificates are valid', '365')
    .action(async (opts: { out: string; host: string[]; days: string }) => {
      const days = Number(opts.days);
      if (!Number.isInteger(days) || days < 1)
        throw new ConfigError(ErrorCode.CONFIG_BAD_VALUE, `--days ${opts.days}: expected a whole number of days, at least 1`);
      for (const f of await writeClusterCerts(opts.out, opts.host, days)) process.stdout.write(`${f}\n`);
    });
}
