import ipaddr from 'ipaddr.js';

/**
 * The key a client address is counted by in per-address limits (docs/api.md, "Compile"
 * fairness): an IPv4 address as itself, an IPv4-mapped IPv6 address as that IPv4
 * address, any other IPv6 address by its /64 prefix (one subscriber's network, which hands out
 * addresses within it at will). Text that is not an IP address is its own key.
 */
export function clientAddressKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address); // IPv4-mapped IPv6 → IPv4
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const prefix = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${prefix.map((part) => part.toString(16)).join(':')}::/64`;
}
