import { clientLimitKey } from './client-address';

describe('clientLimitKey', () => {
  it('counts IPv6 clients by their /64 prefix', () => {
    const key = clientLimitKey('2001:db8:1:2::1');
    expect(key).toBe('2001:db8:1:2::/64');
    expect(clientLimitKey('2001:db8:1:2:ffff:ffff:ffff:fffe')).toBe(key);
    expect(clientLimitKey('2001:0DB8:0001:0002:0:0:0:9')).toBe(key);
    expect(clientLimitKey('2001:db8:1:3::1')).not.toBe(key);
    expect(clientLimitKey('::1')).toBe('0:0:0:0::/64');
    expect(clientLimitKey('fe80::1%eth0')).toBe(clientLimitKey('fe80::2'));
  });

  it('counts an IPv4-mapped address as the IPv4 address', () => {
    expect(clientLimitKey('::ffff:1.2.3.4')).toBe('1.2.3.4');
    expect(clientLimitKey('::ffff:102:304')).toBe('1.2.3.4');
    expect(clientLimitKey('1.2.3.4')).toBe('1.2.3.4');
    expect(clientLimitKey('1.2.3.5')).not.toBe('1.2.3.4');
  });

  it('keeps anything else as it is', () => {
    expect(clientLimitKey('unknown')).toBe('unknown');
  });
});
