import { readNetworkOptions } from './network-settings';

describe('readNetworkOptions', () => {
  it('defaults: no URL, no headers, 16 connections, batches of 16 reads, auto fees', () => {
    const problems: string[] = [];
    expect(readNetworkOptions('testnet', {}, problems)).toEqual({
      urls: [],
      wsUrls: [],
      headers: {},
      maxConnections: 16,
      maxBatch: 16,
      fees: { mode: 'auto', gasPriceWei: undefined, maxFeePerGasWei: undefined },
    });
    expect(problems).toEqual([]);
  });

  it('reads a URL list, JSON headers, the connection cap and the fee policy', () => {
    const problems: string[] = [];
    const options = readNetworkOptions(
      'mainnet',
      {
        MAINNET_RPC_URL: 'http://besu-1:8545, https://besu-2:8545',
        MAINNET_WS_URL: 'ws://besu-1:8546,wss://besu-2:8546',
        MAINNET_RPC_HEADERS: '{"Authorization":"Bearer eyJhbGciOi.x.y"}',
        MAINNET_RPC_MAX_CONNECTIONS: '8',
        MAINNET_RPC_MAX_BATCH: '1',
        MAINNET_FEE_MODE: 'legacy',
        MAINNET_GAS_PRICE_WEI: '0',
        MAINNET_MAX_FEE_PER_GAS_WEI: '100000000000',
      },
      problems,
    );
    expect(problems).toEqual([]);
    expect(options).toEqual({
      urls: ['http://besu-1:8545', 'https://besu-2:8545'],
      wsUrls: ['ws://besu-1:8546', 'wss://besu-2:8546'],
      headers: { authorization: 'Bearer eyJhbGciOi.x.y' },
      maxConnections: 8,
      maxBatch: 1,
      fees: { mode: 'legacy', gasPriceWei: 0n, maxFeePerGasWei: 100_000_000_000n },
    });
  });

  it('names every bad variable and never echoes a header value', () => {
    const problems: string[] = [];
    readNetworkOptions(
      'testnet',
      {
        TESTNET_RPC_URL: 'http://ok:8545,ws://no:8546',
        TESTNET_RPC_HEADERS: '{"Authorization": "Bearer secret-token\\r\\nX: y"}',
        TESTNET_RPC_MAX_CONNECTIONS: '0',
        TESTNET_RPC_MAX_BATCH: '2000',
        TESTNET_FEE_MODE: 'cheap',
        TESTNET_GAS_PRICE_WEI: '-1',
        TESTNET_MAX_FEE_PER_GAS_WEI: '1.5',
      },
      problems,
    );
    expect(problems).toHaveLength(7);
    expect(problems).toContain('TESTNET_RPC_MAX_BATCH: must be a whole number from 1 to 1024');
    expect(problems.join('\n')).not.toContain('secret-token');
    const badWs: string[] = [];
    readNetworkOptions('testnet', { TESTNET_RPC_URL: 'http://a:8545', TESTNET_WS_URL: 'http://a:8546' }, badWs);
    expect(badWs).toEqual(['TESTNET_WS_URL: every entry must be a URL starting with ws:// or wss://']);
    const oneShort: string[] = [];
    readNetworkOptions(
      'testnet',
      { TESTNET_RPC_URL: 'http://a:8545,http://b:8545', TESTNET_WS_URL: 'ws://a:8546' },
      oneShort,
    );
    expect(oneShort).toEqual(['TESTNET_WS_URL: needs one entry per TESTNET_RPC_URL entry, in the same order']);
    const notJson: string[] = [];
    readNetworkOptions('testnet', { TESTNET_RPC_HEADERS: 'Bearer secret-token' }, notJson);
    expect(notJson).toEqual(['TESTNET_RPC_HEADERS: must be a JSON object of header names to string values']);
  });
});
