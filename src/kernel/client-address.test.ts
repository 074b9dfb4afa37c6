import { clientAddressKey } from './client-address';

describe('clientAddressKey', () => {
  it('counts IPv4 as itself and IPv4-mapped IPv6 as that IPv4 address', () => {
    expect(clientAddressKey('203.0.113.5')).toBe('203.0.113.5');
    expect(clientAddressKey('::ffff:203.0.113.5')).toBe('203.0.113.5');
    expect(clientAddressKey('::ffff:cb00:7105')).toBe('203.0.113.5');
  });

  it('counts IPv6 by its /64 prefix, whatever the spelling of the address', () => {
    const a = clientAddressKey('2001:db8:1:2::1');
    expect(a).toBe('2001:db8:1:2::/64');
    expect(clientAddressKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe(a);
    expect(clientAddressKey('2001:db8:1:3::1')).not.toBe(a);
    expect(clientAddressKey('::1')).toBe('0:0:0:0::/64');
  });

  it('keeps text that is not an address as its own key', () => {
    expect(clientAddressKey('unknown')).toBe('unknown');
  });
});
