import type { Network } from '../../../../config';
import type { NetworkName } from '../../../../kernel/network-name';
import { transactionFromRpc, transactionFromStored } from '../../explorer-views';
import { hexToNumber } from '../../runtime/chain-reader';
import type { ExplorerRuntime } from '../../runtime/explorer-runtime';
import { explorerNetwork, parseHash } from '../explorer-input';
import { decodeCall } from '../portal-contracts/method-decoder';
import type { PortalContracts } from '../portal-contracts/portal-contracts';
import type { Transaction, TransactionLookup } from './transactions.types';

/** Transactions by hash, with receipt and logs, and the call decoded when the portal knows the contract. */
export class TransactionsService {
  constructor(
    private readonly runtime: ExplorerRuntime,
    private readonly portal: PortalContracts,
  ) {}

  async transaction(hashArg: string, networkArg: NetworkName | null | undefined): Promise<TransactionLookup> {
    const { index } = this.runtime;
    const network = explorerNetwork(networkArg);
    const hash = parseHash('hash', hashArg);
    const stored = await index.transaction(network, hash);
    let tx: Transaction;
    if (stored) {
      tx = transactionFromStored(stored, await index.logs(network, stored.blockNumber, hash));
    } else {
      const fromNode = await this.transactionFromNode(network, hash);
      if (!fromNode) return { found: false, transaction: null };
      tx = fromNode;
    }
    if (tx.to) {
      const contract = (await this.portal.at(network, [tx.to])).get(tx.to.toLowerCase());
      if (contract) tx.method = decodeCall(contract.abi, tx.input);
    }
    return { found: true, transaction: tx };
  }

  private async transactionFromNode(network: Network, hash: string): Promise<Transaction | null> {
    const { reader } = this.runtime;
    const [raw, receipt] = await Promise.all([reader.transaction(network, hash), reader.receipt(network, hash)]);
    if (!raw) return null;
    const blockNumber = raw.blockNumber ? hexToNumber(raw.blockNumber) : null;
    const block =
      blockNumber !== null && receipt ? ((await reader.blocks(network, [blockNumber], false))[0] ?? null) : null;
    return transactionFromRpc(raw, receipt, block);
  }
}
