/**
 * A client's network, not its address: what logs keep and what rate limits count by.
 *
 * - `clientNetwork(ip)`: an IPv4 address truncated to its /24 (`203.0.113.0/24`), an IPv6 one to its /64
 *   (`2001:db8:1:2::/64`); an IPv4-mapped IPv6 address (`::ffff:203.0.113.7`) counts as IPv4. Logs hold this,
 *   never the address (personal data that would outlive the person's deletion).
 * - `rateLimitClient(ip)`: the key a rate limit counts a client by: the whole IPv4 address, the /64 of an IPv6
 *   one (one subscriber usually holds a whole /64 and can change address within it at will).
 *
 * Anything that is not an IP address reads as 'unknown'.
 */
import { isIPv4, isIPv6 } from 'node:net';

const MAPPED_V4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** The eight 16-bit groups of an IPv6 address (with `::` expanded and a trailing dotted IPv4 read). */
function ipv6Groups(ip: string): number[] {
  let text = ip.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((g) => parseInt(g, 16));
}

function plainIp(ip: string | undefined): string | undefined {
  if (!ip) return undefined;
  const mapped = MAPPED_V4.exec(ip);
  return mapped && isIPv4(mapped[1]) ? mapped[1] : ip;
}

const v6Prefix64 = (ip: string): string =>
  `${ipv6Groups(ip)
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;

/** The client's /24 (IPv4) or /64 (IPv6), for logs; 'unknown' when `ip` is not an address. */
export function clientNetwork(ip: string | undefined): string {
  const plain = plainIp(ip);
  if (plain && isIPv4(plain)) return `${plain.split('.').slice(0, 3).join('.')}.0/24`;
  if (plain && isIPv6(plain)) return v6Prefix64(plain);
  return 'unknown';
}

/** The key a rate limit counts a client by: the IPv4 address, or the IPv6 address's /64. */
export function rateLimitClient(ip: string | undefined): string {
  const plain = plainIp(ip);
  if (plain && isIPv4(plain)) return plain;
  if (plain && isIPv6(plain)) return v6Prefix64(plain);
  return 'unknown';
}
