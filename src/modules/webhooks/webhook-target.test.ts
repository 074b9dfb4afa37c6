import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkWebhookUrl, refusedAddressReason, resolveTarget, type Resolver } from './webhook-target';
import { postMessage } from './webhook-sender';

const strict = { allowPrivate: false };
const open = { allowPrivate: true };
/** A resolver pinned to fixed answers (the real one is used for `localhost` below). */
const pinnedResolver =
  (answers: Record<string, string[]>): Resolver =>
  async (host) =>
    answers[host] ?? [];

const codeOf = (err: unknown) => (err as { code?: string }).code;

describe('refusedAddressReason', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['224.0.0.1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['64:ff9b::7f00:1', 'rfc6052'],
    ['2002:7f00:1::', '6to4'],
  ])('refuses %s (%s)', (address, range) => {
    expect(refusedAddressReason(address)).toBe(`${address} is a ${range} address`);
  });

  it.each([
    // IPv4-compatible (deprecated ::/96): WHATWG writes http://[::127.0.0.1]/ as [::7f00:1].
    ['::7f00:1', 'outside global unicast (2000::/3)'],
    ['::a00:1', 'outside global unicast (2000::/3)'],
    ['::808:808', 'outside global unicast (2000::/3)'],
    // Unnamed space outside 2000::/3 (ipaddr.js calls it unicast).
    ['4000::1', 'outside global unicast (2000::/3)'],
    ['e000::1', 'outside global unicast (2000::/3)'],
    ['1::1', 'outside global unicast (2000::/3)'],
  ])('refuses %s (%s)', (address, why) => {
    expect(refusedAddressReason(address)).toBe(`${address} is ${why}`);
  });

  it.each([
    // Special-purpose ranges inside 2000::/3, and wrappers of private IPv4.
    ['2001:db8::1', 'reserved'],
    ['2001::1', 'teredo'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
    ['2002:a00:1::1', '6to4'],
    ['64:ff9b::a00:1', 'rfc6052'],
    ['64:ff9b:1::1', 'rfc6052'],
    ['::ffff:0:a00:1', 'rfc6145'],
    ['100::1', 'discard'],
  ])('refuses %s (%s) too', (address, range) => {
    expect(refusedAddressReason(address)).toBe(`${address} is a ${range} address`);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('accepts %s', (address) => {
    expect(refusedAddressReason(address)).toBeUndefined();
  });
});

describe('checkWebhookUrl in production (strict policy)', () => {
  it.each([
    'http://127.0.0.1/hook',
    'http://10.0.0.5:8080/hook',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::1]/hook',
    'http://[fe80::1]/hook',
    'http://[fc00::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://[::127.0.0.1]/hook',
    'http://[::7f00:1]/hook',
    'http://[::10.0.0.1]/hook',
    'http://[64:ff9b::127.0.0.1]/hook',
    'http://[2002:7f00:1::1]/hook',
    'http://0.0.0.0/hook',
    // WHATWG shorthands of 127.0.0.1 are normalised before the check.
    'http://2130706433/hook',
    'http://0x7f.1/hook',
    'http://localhost:4000/hook',
  ])('refuses %s with 400 VALIDATION_FAILED and a reason', async (url) => {
    const err = await checkWebhookUrl(url, strict).catch((e: unknown) => e);
    expect(codeOf(err)).toBe('VALIDATION_FAILED');
    expect((err as Error).message).toMatch(/url is not accepted: .*(address|resolve)/);
  });

  it('refuses a name resolving to loopback, and one with a private address among public ones', async () => {
    const resolve = pinnedResolver({
      'loop.example': ['127.0.0.1'],
      'mixed.example': ['93.184.216.34', '10.0.0.1'],
      'public.example': ['93.184.216.34', '2606:4700:4700::1111'],
    });
    await expect(checkWebhookUrl('https://loop.example/h', strict, resolve)).rejects.toThrow(/loopback/);
    await expect(checkWebhookUrl('https://mixed.example/h', strict, resolve)).rejects.toThrow(/private/);
    await expect(checkWebhookUrl('https://nowhere.example/h', strict, resolve)).rejects.toThrow(/no address/);
    expect((await checkWebhookUrl('https://public.example/h', strict, resolve)).href).toBe('https://public.example/h');
  });

  it('refuses other schemes, credentials, overlong and relative URLs whatever the policy', async () => {
    for (const [url, reason] of [
      ['ftp://example.com/x', /only http and https/],
      ['file:///etc/passwd', /only http and https/],
      ['javascript:alert(1)', /only http and https/],
      ['https://user:pw@example.com/x', /credentials/],
      ['/relative', /not an absolute URL/],
      [`https://example.com/${'a'.repeat(2048)}`, /longer than 2048/],
    ] as const) {
      await expect(checkWebhookUrl(url, open)).rejects.toThrow(reason);
    }
  });

  it('lets private targets through outside production', async () => {
    expect((await checkWebhookUrl('http://127.0.0.1:9/x', open)).hostname).toBe('127.0.0.1');
  });

  it('resolveTarget checks every address of a name', async () => {
    await expect(resolveTarget('localhost')).rejects.toThrow(/loopback/);
  });
});

describe('postMessage', () => {
  it('re-checks the address at delivery and never connects to a refused one', async () => {
    let hits = 0;
    const server = http.createServer((_req, res) => {
      hits += 1;
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    try {
      // A name that resolved to a public address at creation now answers 127.0.0.1 (DNS rebinding).
      const rebound = pinnedResolver({ 'rebind.example': ['127.0.0.1'] });
      const refused = await postMessage(`http://rebind.example:${port}/h`, '{}', {}, strict, undefined, rebound);
      expect(refused).toEqual({ ok: false, status: null, error: expect.stringMatching(/loopback/) });
      expect(hits).toBe(0);
      // Outside production the same delivery connects to the resolved address, with the URL's host name.
      const sent = await postMessage(`http://rebind.example:${port}/h`, '{}', {}, open, undefined, rebound);
      expect(sent).toEqual({ ok: true, status: 200, error: null });
      expect(hits).toBe(1);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('refuses at delivery a name that now resolves to an IPv4-compatible IPv6 address', async () => {
    const rebound = pinnedResolver({ 'compat.example': ['::7f00:1'] });
    expect(await postMessage('http://compat.example:9/h', '{}', {}, strict, undefined, rebound)).toEqual({
      ok: false,
      status: null,
      error: 'host compat.example resolves to a refused address (::7f00:1 is outside global unicast (2000::/3))',
    });
  });

  it('does not follow redirects', async () => {
    const server = http.createServer((_req, res) => {
      res.writeHead(302, { location: 'http://169.254.169.254/' }).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    try {
      expect(await postMessage(`http://127.0.0.1:${port}/`, '{}', {}, open)).toEqual({
        ok: false,
        status: 302,
        error: 'status 302',
      });
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
