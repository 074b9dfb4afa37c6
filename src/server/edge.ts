import { createHash, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import ipaddr from 'ipaddr.js';
import proxyAddr from 'proxy-addr';

/**
 * The client's address: the socket's peer, or with TRUST_PROXY the address X-Forwarded-For names
 * behind the trusted proxies (proxy-addr, as express reads it): `true` trusts every hop, a number
 * that many hops, anything else a comma-separated list of addresses, subnets or proxy-addr's names.
 */
export function clientAddressOf(trustProxy: string | undefined): (req: http.IncomingMessage) => string {
  // Trusting no proxy, proxy-addr answers the socket's peer whatever the headers say: read it directly.
  if (trustProxy === undefined || trustProxy === 'false') return (req) => req.socket.remoteAddress || 'unknown';
  let trust: (addr: string, i: number) => boolean;
  if (trustProxy === 'true') trust = () => true;
  else if (/^\d+$/.test(trustProxy)) {
    const hops = Number(trustProxy);
    trust = (_addr, i) => i < hops;
  } else {
    trust = proxyAddr.compile(
      trustProxy
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );
  }
  return (req) => proxyAddr(req, trust) || 'unknown';
}

/** Whether a request presents METRICS_TOKEN as its bearer token (constant time). */
export function hasMetricsToken(req: http.IncomingMessage, token: string): boolean {
  const presented = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
  if (!presented) return false;
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(presented), digest(token));
}

const isLoopback = (address: string | undefined): boolean =>
  address !== undefined && ipaddr.isValid(address) && ipaddr.process(address).range() === 'loopback';

/**
 * Whether a request comes from this machine: its socket's peer is a loopback address
 * (IPv4-mapped included), and so is the client it was relayed for, if it names one
 * (X-Forwarded-For, Forwarded): without TRUST_PROXY such a request is not a loopback client at
 * all, since a proxy on this machine relays strangers' requests.
 */
export function isLoopbackClientOf(
  trustProxy: string | undefined,
  clientAddress: (req: http.IncomingMessage) => string,
): (req: http.IncomingMessage) => boolean {
  const trusting = trustProxy !== undefined && trustProxy !== 'false';
  return (req) => {
    if (!isLoopback(req.socket.remoteAddress)) return false;
    if (req.headers['x-forwarded-for'] === undefined && req.headers.forwarded === undefined) return true;
    return trusting && isLoopback(clientAddress(req));
  };
}
