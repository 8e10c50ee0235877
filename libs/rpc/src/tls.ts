import * as grpc from '@grpc/grpc-js';
import { dropIpServerNameWarning } from './ip-servername-warning.js';

/** The PEM files of mutual TLS: the cluster CA, this process's certificate and its key. */
export interface TlsFiles {
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
}

/** How often the files are read again, so a renewed certificate is used without a restart. */
const REFRESH_MS = 5000;

let provider: grpc.experimental.FileWatcherCertificateProvider | undefined;
let channel: grpc.ChannelCredentials = grpc.credentials.createInsecure();
let configured = false;
let current: TlsFiles | undefined;

/**
 * The environment variables that carry the files: the CLI's clients read them
 * (TIDEWAY_TLS_CA, TIDEWAY_TLS_CERT, TIDEWAY_TLS_KEY), and configureTls sets them so that the
 * task threads of a worker (which have their own module state) use the same files.
 */
export const TLS_ENV = { caFile: 'TIDEWAY_TLS_CA', certFile: 'TIDEWAY_TLS_CERT', keyFile: 'TIDEWAY_TLS_KEY' } as const;

/** The files named by TIDEWAY_TLS_CA/CERT/KEY, undefined when TIDEWAY_TLS_CA is not set. */
export function tlsFilesFromEnv(env: NodeJS.ProcessEnv = process.env): TlsFiles | undefined {
  const caFile = env[TLS_ENV.caFile] ?? '';
  if (!caFile) return undefined;
  const certFile = env[TLS_ENV.certFile] ?? '';
  const keyFile = env[TLS_ENV.keyFile] ?? '';
  if (!certFile || !keyFile)
    throw new Error(
      `${TLS_ENV.caFile} is set: ${TLS_ENV.certFile} and ${TLS_ENV.keyFile} must name this client's certificate and key too (mutual TLS)`,
    );
  return { caFile, certFile, keyFile };
}

function ensureConfigured(): void {
  if (!configured) configureTls(tlsFilesFromEnv());
}

/**
 * Sets the process's transport: mutual TLS with these files (every server then requires a
 * client certificate signed by the CA, every client presents this process's own), or
 * plaintext when `files` is undefined or has empty names. Call before any server or client is
 * made; they pick their credentials when created. Without a call, the first use reads
 * TIDEWAY_TLS_CA/CERT/KEY (tlsFilesFromEnv).
 */
export function configureTls(files: TlsFiles | undefined): void {
  configured = true;
  current = files && files.caFile ? files : undefined;
  if (!files || !files.caFile) {
    provider = undefined;
    channel = grpc.credentials.createInsecure();
    // Task threads read the variables: they must follow this process's choice of plaintext.
    for (const name of Object.values(TLS_ENV)) delete process.env[name];
    return;
  }
  process.env[TLS_ENV.caFile] = files.caFile;
  process.env[TLS_ENV.certFile] = files.certFile;
  process.env[TLS_ENV.keyFile] = files.keyFile;
  provider = certificateProvider(files);
  channel = grpc.experimental.createCertificateProviderChannelCredentials(provider, provider);
}

/**
 * A watcher of the files: grpc-js reads them every REFRESH_MS and hands new contents to the
 * servers' and channels' TLS contexts, so new connections use a renewed certificate.
 */
function certificateProvider(files: TlsFiles): grpc.experimental.FileWatcherCertificateProvider {
  dropIpServerNameWarning();
  return new grpc.experimental.FileWatcherCertificateProvider({
    caCertificateFile: files.caFile,
    certificateFile: files.certFile,
    privateKeyFile: files.keyFile,
    refreshIntervalMs: REFRESH_MS,
  });
}

/**
 * Mutual TLS credentials for one client with these files, whatever the process's transport
 * (configureTls): a library's caller names its own certificate (JobClient's `tls` option).
 */
export function mutualTlsChannelCredentials(files: TlsFiles): grpc.ChannelCredentials {
  const watcher = certificateProvider(files);
  return grpc.experimental.createCertificateProviderChannelCredentials(watcher, watcher);
}

/** Credentials for every Tideway client channel: mutual TLS when configured, plaintext otherwise. */
export function channelCredentials(): grpc.ChannelCredentials {
  ensureConfigured();
  return channel;
}

/** Credentials for every Tideway server: mutual TLS (client certificate required) when configured. */
export function serverCredentials(): grpc.ServerCredentials {
  ensureConfigured();
  return provider
    ? grpc.experimental.createCertificateProviderServerCredentials(provider, provider, true)
    : grpc.ServerCredentials.createInsecure();
}

/** Whether mutual TLS is on in this process. */
export function tlsEnabled(): boolean {
  ensureConfigured();
  return provider !== undefined;
}

/** The files in use, undefined for plaintext. */
export function currentTlsFiles(): TlsFiles | undefined {
  ensureConfigured();
  return current;
}
