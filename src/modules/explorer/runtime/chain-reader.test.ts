import { ChainRegistry } from '../../../chain/chain-registry';
import { startLocalNode, type LocalNode } from '../../../chain/local-node';
import { createLogger } from '../../../kernel/logger';
import { startBesuChain, type BesuChain } from '../../../../tests/kit/besu-node';
import { ChainReader } from './chain-reader';

describe('ChainReader budgets', () => {
  const silent = createLogger('silent');
  let node: LocalNode;
  let registry: ChainRegistry;

  beforeAll(async () => {
    node = await startLocalNode({ chainId: 17991, blockTime: 1, logger: silent });
    registry = await ChainRegistry.connect({ testnet: node.url }, silent);
  });
  afterAll(async () => {
    registry?.destroy();
    await node?.stop();
  });

  it('serves the indexer while an address scan is still reading hundreds of blocks', async () => {
    const reader = new ChainReader(registry);
    let scanDone = false;
    const scan = reader
      .blocks(
        'testnet',
        Array.from({ length: 600 }, () => 0),
        true,
        'scan',
      )
      .then(() => (scanDone = true));
    const [block] = await reader.blocks('testnet', [0], false);
    expect(block?.number).toBe('0x0');
    expect(scanDone).toBe(false);
    await scan;
  });
});

describe('ChainReader validators', () => {
  let chain: BesuChain;
  const silent = createLogger('silent');

  afterEach(async () => {
    await chain?.stop();
  });

  it('asks qbft_getValidatorsByBlockNumber (Besu), else istanbul_getValidators (GoQuorum), else null', async () => {
    chain = await startBesuChain(17991, { validators: ['0x00000000000000000000000000000000000000aa'] });
    const registry = await ChainRegistry.connect({ testnet: chain.front.url }, silent);
    try {
      const reader = new ChainReader(registry);
      expect(await reader.qbftValidators('testnet', 0)).toEqual(['0x00000000000000000000000000000000000000aa']);
      await chain.stop();
      chain = await startBesuChain(17991, {});
      const bare = await ChainRegistry.connect({ testnet: chain.front.url }, silent);
      expect(await new ChainReader(bare).qbftValidators('testnet', 0)).toBeNull();
      expect(chain.front.calls).toEqual(
        expect.arrayContaining(['qbft_getValidatorsByBlockNumber', 'istanbul_getValidators']),
      );
      bare.destroy();
      await chain.stop();
      chain = await startBesuChain(17991, { istanbulValidators: ['0x00000000000000000000000000000000000000bb'] });
      const quorum = await ChainRegistry.connect({ testnet: chain.front.url }, silent);
      expect(await new ChainReader(quorum).qbftValidators('testnet', 0)).toEqual([
        '0x00000000000000000000000000000000000000bb',
      ]);
      quorum.destroy();
    } finally {
      registry.destroy();
    }
  });
});
