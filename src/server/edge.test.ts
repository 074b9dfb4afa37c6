import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { clientAddressOf, hasMetricsToken, isLoopbackClientOf } from './edge';
import { withHygieneHeaders } from './with-hygiene-headers';

const request = (remoteAddress: string, forwarded?: string) =>
  ({
    headers: forwarded ? { 'x-forwarded-for': forwarded } : {},
    socket: { remoteAddress },
    connection: { remoteAddress },
  }) as unknown as http.IncomingMessage;

describe('client address', () => {
  it('is the socket peer unless TRUST_PROXY says otherwise', () => {
    expect(clientAddressOf(undefined)(request('10.0.0.2', '1.2.3.4'))).toBe('10.0.0.2');
    expect(clientAddressOf('false')(request('10.0.0.2', '1.2.3.4'))).toBe('10.0.0.2');
    expect(clientAddressOf('true')(request('10.0.0.2', '9.9.9.9, 1.2.3.4'))).toBe('9.9.9.9');
    expect(clientAddressOf('1')(request('10.0.0.2', '9.9.9.9, 1.2.3.4'))).toBe('1.2.3.4');
    expect(clientAddressOf('10.0.0.0/8')(request('10.0.0.2', '9.9.9.9, 1.2.3.4'))).toBe('1.2.3.4');
    // A peer that is not a trusted proxy cannot choose its address.
    expect(clientAddressOf('10.0.0.0/8')(request('8.8.8.8', '1.2.3.4'))).toBe('8.8.8.8');
  });
});

describe('loopback clients (/metrics in production without token or port)', () => {
  it('are the ones whose client address is loopback, IPv4-mapped included', () => {
    const loopback = isLoopbackClientOf(undefined, clientAddressOf(undefined));
    expect(loopback(request('127.0.0.1'))).toBe(true);
    expect(loopback(request('127.8.9.10'))).toBe(true);
    expect(loopback(request('::1'))).toBe(true);
    expect(loopback(request('::ffff:127.0.0.1'))).toBe(true);
    expect(loopback(request('10.0.0.2'))).toBe(false);
    expect(loopback(request('::ffff:10.0.0.2'))).toBe(false);
    expect(loopback(request('2001:db8::1'))).toBe(false);
  });

  it('exclude a request relayed by a local proxy, unless TRUST_PROXY names its client', () => {
    const untrusting = isLoopbackClientOf(undefined, clientAddressOf(undefined));
    expect(untrusting(request('127.0.0.1', '203.0.113.5'))).toBe(false);
    expect(untrusting(request('127.0.0.1', '127.0.0.1'))).toBe(false);
    const trusting = isLoopbackClientOf('1', clientAddressOf('1'));
    expect(trusting(request('127.0.0.1', '203.0.113.5'))).toBe(false);
    expect(trusting(request('127.0.0.1', '127.0.0.1'))).toBe(true);
    // A client that calls itself loopback through a proxy elsewhere is not on this machine.
    expect(trusting(request('10.0.0.2', '127.0.0.1'))).toBe(false);
    expect(isLoopbackClientOf('true', clientAddressOf('true'))(request('10.0.0.2', '127.0.0.1'))).toBe(false);
  });
});

describe('response hygiene', () => {
  async function serve(origins: string[] | undefined) {
    const hygiene = withHygieneHeaders(origins);
    const server = http.createServer((req, res) => hygiene(req, res, () => res.end('ok')));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  }

  it('echoes only the listed origins with CORS_ORIGINS, and marks answers nosniff and no-store as due', async () => {
    const { server, url } = await serve(['https://app.example.org']);
    try {
      const preflight = (origin: string) =>
        fetch(`${url}/graphql`, {
          method: 'OPTIONS',
          headers: { origin, 'access-control-request-method': 'POST' },
        });
      const allowed = await preflight('https://app.example.org');
      expect(allowed.status).toBe(204);
      expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.org');
      const foreign = await preflight('https://evil.example');
      expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
      const get = await fetch(`${url}/x`);
      expect(get.headers.get('x-content-type-options')).toBe('nosniff');
      expect(get.headers.get('cache-control')).toBeNull();
      const post = await fetch(`${url}/x`, { method: 'POST' });
      expect(post.headers.get('cache-control')).toBe('no-store');
      const authed = await fetch(`${url}/x`, { headers: { 'x-api-key': 'svc_x' } });
      expect(authed.headers.get('cache-control')).toBe('no-store');
    } finally {
      server.close();
    }
  });

  it('gives a request without Origin the same headers as helmet and cors write on each request', async () => {
    const hygieneOf = (res: Response) =>
      [...res.headers.entries()].filter(([k]) => !['date', 'connection', 'keep-alive', 'content-length'].includes(k));
    for (const origins of [undefined, ['https://app.example.org']]) {
      const { server, url } = await serve(origins);
      try {
        // An Origin the list does not hold makes both middleware run; without one, the replay serves.
        const [first, second] = [await fetch(`${url}/x`), await fetch(`${url}/x`)];
        const viaMiddleware = await fetch(`${url}/x`, { headers: { origin: 'https://other.example' } });
        expect(hygieneOf(first)).toEqual(hygieneOf(second));
        const expected = hygieneOf(viaMiddleware).filter(([k]) => k !== 'access-control-allow-origin' || !origins);
        expect(hygieneOf(first)).toEqual(expected);
        expect(first.headers.get('x-content-type-options')).toBe('nosniff');
        expect(first.headers.get('access-control-allow-origin')).toBe(origins ? null : '*');
        expect(first.headers.get('vary')).toBe(origins ? 'Origin' : null);
      } finally {
        server.close();
      }
    }
  });

  it('writes nosniff, a frame denial and CORS on an API answer, and none of the page headers', async () => {
    const { server, url } = await serve(undefined);
    try {
      const res = await fetch(`${url}/x`);
      const names = [...res.headers.keys()].filter(
        (k) => !['date', 'connection', 'keep-alive', 'content-length'].includes(k),
      );
      expect(names.sort()).toEqual([
        'access-control-allow-origin',
        'access-control-expose-headers',
        'x-content-type-options',
        'x-frame-options',
      ]);
      expect(res.headers.get('x-frame-options')).toBe('DENY');
    } finally {
      server.close();
    }
  });

  it('compares the metrics token in full', () => {
    const req = (authorization?: string) => ({ headers: { authorization } }) as http.IncomingMessage;
    expect(hasMetricsToken(req('Bearer s3cret-token'), 's3cret-token')).toBe(true);
    expect(hasMetricsToken(req('Bearer s3cret'), 's3cret-token')).toBe(false);
    expect(hasMetricsToken(req(), 's3cret-token')).toBe(false);
  });
});
