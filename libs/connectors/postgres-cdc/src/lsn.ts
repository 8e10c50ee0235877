/** PostgreSQL WAL positions: text 'X/Y' (hex halves) <-> bigint. */
export function parseLsn(text: string): bigint {
  const slash = text.indexOf('/');
  return (BigInt(`0x${text.slice(0, slash)}`) << 32n) | BigInt(`0x${text.slice(slash + 1)}`);
}

export function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}
