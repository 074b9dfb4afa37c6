import { lookup as dnsLookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { AppError } from '../../kernel/errors/app-error';

/** Longest webhook URL accepted. */
export const MAX_URL_LENGTH = 2048;

/** Whether webhook targets may be private addresses (outside production, or WEBHOOK_ALLOW_PRIVATE). */
export interface TargetPolicy {
  allowPrivate: boolean;
}

/** Resolves a host name to every address it has; replaceable so that tests can pin answers. */
export type Resolver = (host: string) => Promise<string[]>;

export const systemResolver: Resolver = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** IPv6 global unicast (RFC 4291 §2.4): the only IPv6 space a webhook may target in production. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * Why `address` may not be a webhook target, or undefined when it is a public unicast address.
 * ipaddr.js names the range: anything but `unicast` (private, loopback, link-local, unique-local,
 * CGNAT, multicast, unspecified, broadcast, reserved, 6to4/Teredo/NAT64 wrappers...) is refused,
 * and an IPv6 address outside 2000::/3 too; an IPv4-mapped IPv6 address is judged as the IPv4
 * address it carries (docs/api.md, "Targets (SSRF)").
 */
export function refusedAddressReason(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  const range = parsed.range();
  if (range !== 'unicast') return `${address} is a ${range} address`;
  // ipaddr.js calls every IPv6 address it has no name for unicast, the IPv4-compatible ::a.b.c.d
  // (what WHATWG makes of http://[::127.0.0.1]/) among them: only global unicast 2000::/3 is.
  if (parsed.kind() === 'ipv6' && !parsed.match(GLOBAL_UNICAST_V6)) {
    return `${address} is outside global unicast (2000::/3)`;
  }
  return undefined;
}

/** The URL's host as a bare name or address (IPv6 without brackets). */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * Parses and checks a webhook URL as given at creation: http/https only, at most 2048 characters,
 * no credentials in it; with a strict policy its host must be, or resolve only to, public addresses.
 */
export async function checkWebhookUrl(
  raw: string,
  policy: TargetPolicy,
  resolve: Resolver = systemResolver,
): Promise<URL> {
  const refuse = (reason: string): never => {
    throw new AppError('VALIDATION_FAILED', `url is not accepted: ${reason}`, { field: 'url', reason });
  };
  if (raw.length > MAX_URL_LENGTH) refuse(`longer than ${MAX_URL_LENGTH} characters`);
  // WHATWG URL parsing: the same normalisation (IPv4 shorthands, IDNA, percent-encoding) the sender sees.
  const url = URL.canParse(raw) ? new URL(raw) : refuse('not an absolute URL');
  if (url.protocol !== 'http:' && url.protocol !== 'https:') refuse('only http and https URLs are allowed');
  // Credentials in a URL would be shown in every listing; receivers verify the signature instead.
  if (url.username !== '' || url.password !== '') refuse('credentials in the URL are not allowed');
  if (url.hostname === '') refuse('the URL has no host');
  if (!policy.allowPrivate) {
    await resolveTarget(hostOf(url), resolve).catch((err: unknown) =>
      refuse(err instanceof TargetRefused ? err.message : `host ${url.hostname} does not resolve`),
    );
  }
  return url;
}

/** A delivery target refused by the policy (its message is safe to record). */
export class TargetRefused extends Error {}

/**
 * Every address of `host` (an address literal is its own), each checked: one refused address
 * refuses the host, so that a name resolving to a public and a private address cannot be used.
 */
export async function resolveTarget(host: string, resolve: Resolver = systemResolver): Promise<string[]> {
  const addresses = ipaddr.isValid(host) ? [host] : await resolve(host);
  if (addresses.length === 0) throw new TargetRefused(`host ${host} has no address`);
  for (const address of addresses) {
    const reason = refusedAddressReason(address);
    if (reason) throw new TargetRefused(`host ${host} resolves to a refused address (${reason})`);
  }
  return addresses;
}
