/**
 * grpc-js gives Node's TLS the channel target's host as the server name even when it is an IP
 * address, and Node then prints DeprecationWarning DEP0123 ("Setting the TLS ServerName to an IP
 * address is not permitted by RFC 6066") on stderr, once in each thread (grpc/grpc-node#1919, open
 * since 2021). Tideway's processes reach each other by IP address, so with mutual TLS on, every
 * coordinator, worker and task thread printed that raw line among its pino logs. The check of
 * the server's certificate does not depend on it (Node matches an IP host against the
 * certificate's IP addresses), so that warning, and no other, is dropped.
 */

const DEP = 'DEP0123';
let installed = false;

/** Whether an emitWarning call's arguments carry code DEP0123 (either of its two signatures). */
function isIpServerName(args: readonly unknown[]): boolean {
  const [, typeOrOptions, code] = args;
  if (typeOrOptions !== null && typeof typeOrOptions === 'object') return (typeOrOptions as { code?: unknown }).code === DEP;
  return code === DEP;
}

type EmitWarning = (...args: unknown[]) => void;

/** `emit` without DEP0123: the calls that carry that code are dropped, every other goes through. */
export function withoutIpServerName(emit: EmitWarning): EmitWarning {
  return (...args: unknown[]): void => {
    if (!isIpServerName(args)) emit(...args);
  };
}

/** Drops DEP0123 from this thread's process.emitWarning; idempotent. */
export function dropIpServerNameWarning(): void {
  if (installed) return;
  installed = true;
  process.emitWarning = withoutIpServerName(process.emitWarning.bind(process) as EmitWarning);
}
