import { loggablePath, rpcPathOf, withPathKey } from './rpc-path';

describe('JSON-RPC door paths', () => {
  it('reads the network and the key of a door path', () => {
    expect(rpcPathOf('/rpc/testnet')).toEqual({ network: 'testnet', apiKey: undefined });
    expect(rpcPathOf('/rpc/mainnet/svc_abc')).toEqual({ network: 'mainnet', apiKey: 'svc_abc' });
    expect(rpcPathOf('/rpc/testnet/svc_abc/')).toEqual({ network: 'testnet', apiKey: 'svc_abc' });
    expect(rpcPathOf('/rpc/testnet/svc_abc/more')).toBeUndefined();
    expect(rpcPathOf('/graphql')).toBeUndefined();
  });

  it('never logs what follows the network, served path or not', () => {
    expect(loggablePath('/rpc/testnet')).toBe('/rpc/testnet');
    expect(loggablePath('/rpc/testnet/')).toBe('/rpc/testnet/');
    expect(loggablePath('/rpc/testnet/svc_secret')).toBe('/rpc/testnet/[redacted]');
    expect(loggablePath('/rpc/testnet/svc_secret/extra')).toBe('/rpc/testnet/[redacted]');
    expect(loggablePath('/api/explorer/blocks/1')).toBe('/api/explorer/blocks/1');
  });

  it('takes the key in the path as an x-api-key header, a header given winning', () => {
    expect(withPathKey({}, '/rpc/testnet/svc_path').apiKey).toBe('svc_path');
    expect(withPathKey({ apiKey: 'svc_header' }, '/rpc/testnet/svc_path').apiKey).toBe('svc_header');
  });
});
