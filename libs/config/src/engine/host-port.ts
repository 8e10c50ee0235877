/** A network address as written in settings: `host:port`, `[v6]:port`. */
export interface HostPort {
  readonly host: string;
  readonly port: number;
}

/**
 * Parses `host:port` (an IPv6 host in brackets: `[::1]:6379`); undefined when the text is not
 * one. The port must be 1..65535: a listener's port 0 ("pick one") cannot be dialled.
 */
export function parseHostPort(text: string): HostPort | undefined {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9._-]+)):(\d{1,5})$/.exec(text.trim());
  if (!m) return undefined;
  const port = Number(m[3]);
  if (port < 1 || port > 65535) return undefined;
  return { host: m[1] ?? m[2], port };
}

/** `host:port` again, with brackets around an IPv6 host. */
export function formatHostPort(address: HostPort): string {
  return address.host.includes(':') ? `[${address.host}]:${address.port}` : `${address.host}:${address.port}`;
}
