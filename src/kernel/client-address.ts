import ipaddr from 'ipaddr.js';

/**
 * The key every per-address limit counts a client under (docs/api.md, "Conventions"): an IPv4 address
 * as itself, an IPv6 address by its /64 prefix (one subscriber's network: rotating the interface
 * identifier does not buy a new budget), an IPv4-mapped IPv6 address as the IPv4 address it
 * carries. Anything that is not an address (the edge's `unknown`) is its own key.
 */
export function clientLimitKey(address: string): string {
  // A zone index (fe80::1%eth0) is not part of the address.
  const bare = address.replace(/%.*$/, '');
  if (!ipaddr.isValid(bare)) return address;
  const parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  const prefix = v6.parts.slice(0, 4).map((p) => p.toString(16));
  return `${prefix.join(':')}::/64`;
}
