import { str } from '../sql.js';

/** One octet 0-255 without leading zeros, so that only real dotted quads get an address order. */
const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
export const IPV4 = `${OCTET}(?:\\.${OCTET}){3}`;

/** An IPv4 address (SQL text) as a number (NULL for anything else), e.g. 10.0.0.2 < 10.0.0.10. */
export function ipNumber(text: string): string {
  const octet = (i: number) => `CAST(split_part(${text}, '.', ${i}) AS BIGINT)`;
  return `CASE WHEN regexp_full_match(${text}, ${str(IPV4)}) THEN ((${octet(1)} * 256 + ${octet(2)}) * 256 + ${octet(3)}) * 256 + ${octet(4)} END`;
}

/** A dotted quad's number in TypeScript; undefined when it is not one. */
export function ipValue(ip: string): number | undefined {
  if (!new RegExp(`^${IPV4}$`).test(ip)) return undefined;
  return ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);
}
