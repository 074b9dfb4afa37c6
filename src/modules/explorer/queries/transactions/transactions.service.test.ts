import { NetworkName } from '../../../../kernel/network-name';
import type { BlockIndex } from '../../runtime/block-index';
import type { ChainReader } from '../../runtime/chain-reader';
import type { PortalContracts } from '../../portal/portal-contracts';
import type { TokensService } from '../../../tokens';
import { ExplorerTransactionsService } from './transactions.service';

// Collaborators reduced to the two lookups an unknown transaction makes: the index, then the node.
function service() {
  const asked: string[] = [];
  const index = {
    transactionWithLogs: async (_network: string, hash: string) => {
      asked.push(hash);
      await new Promise((r) => setTimeout(r, 5));
      return null;
    },
  } as unknown as BlockIndex;
  const reader = { transaction: async () => null, receipt: async () => null } as unknown as ChainReader;
  const transactions = new ExplorerTransactionsService(reader, index, {} as PortalContracts, {} as TokensService);
  return { transactions, asked };
}

const HASH = `0x${'ab'.repeat(32)}`;

describe('ExplorerTransactionsService.transaction', () => {
  it('looks a transaction up once for every caller asking while it is under way', async () => {
    const { transactions, asked } = service();
    const answers = await Promise.all([
      ...Array.from({ length: 100 }, () => transactions.transaction(HASH, NetworkName.testnet)),
      transactions.transaction(HASH.toUpperCase().replace('0X', '0x'), NetworkName.testnet),
    ]);
    expect(answers.every((a) => a.found === false)).toBe(true);
    expect(asked).toEqual([HASH]);
    // Another network, or a lookup after the first ended, is a lookup of its own.
    await transactions.transaction(HASH, NetworkName.mainnet);
    await transactions.transaction(HASH, NetworkName.testnet);
    expect(asked).toEqual([HASH, HASH, HASH]);
  });

  it('refuses a malformed hash without looking anything up', async () => {
    const { transactions, asked } = service();
    await expect(transactions.transaction('0x12', NetworkName.testnet)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    expect(asked).toEqual([]);
  });
});
