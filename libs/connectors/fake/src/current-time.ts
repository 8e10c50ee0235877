/**
 * The local date and time as SeaTunnel's CURRENT_DATE / CURRENT_TIME / CURRENT_TIMESTAMP
 * give them (Java's LocalDate/LocalTime/LocalDateTime.now(): local zone, no offset), in the
 * text forms Tideway holds temporal values in.
 */
const two = (n: number): string => String(n).padStart(2, '0');

/** Today, 'YYYY-MM-DD'. */
export function currentDate(): string {
  const d = new Date();
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}`;
}

function timeOf(d: Date): string {
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

/** Now, 'HH:mm:ss.SSS'. */
export function currentTime(): string {
  return timeOf(new Date());
}

/** Now, 'YYYY-MM-DDTHH:mm:ss.SSS'. */
export function currentTimestamp(): string {
  const d = new Date();
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${timeOf(d)}`;
}
