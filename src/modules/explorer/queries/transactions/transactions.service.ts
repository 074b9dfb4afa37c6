import type { Network } from '../../../../kernel/network';
import type { NetworkName } from '../../../../kernel/network-name';
import type { BlockIndex } from '../../runtime/block-index';
import type { ChainReader } from '../../runtime/chain-reader';
import { transactionFromRpc, transactionFromStored } from '../../views/transactions.views';
import { hexToNumber } from '../../views/sources';
import { explorerNetwork, parseHash } from '../explorer-input';
import { DecodeBudget } from '../../../../chain/abi';
import { decodeLogAsync } from '../../views/decoded-log';
import { decodeCallAsync } from '../../views/decoded-call';
import type { PortalContracts } from '../../portal/portal-contracts';
import type { Transaction, TransactionLookup } from '../../views/transactions.types';
import type { TokensService } from '../../../tokens';

/** Transactions by hash, with receipt and logs, and the call decoded when the portal knows the contract. */
export class ExplorerTransactionsService {
  /**
   * Lookups under way by network and hash: a document that names one transaction under many aliases,
   * or many clients asking at once, read and decode it once (docs/api.md "Hostile chain data").
   */
  private readonly inFlight = new Map<string, Promise<TransactionLookup>>();

  constructor(
    private readonly reader: ChainReader,
    private readonly index: BlockIndex,
    private readonly portal: PortalContracts,
    private readonly tokens: TokensService,
  ) {}

  transaction(hashArg: string, networkArg: NetworkName | null | undefined): Promise<TransactionLookup> {
    let network: Network;
    let hash: string;
    try {
      network = explorerNetwork(networkArg);
      hash = parseHash('hash', hashArg);
    } catch (error) {
      return Promise.reject(error);
    }
    const key = `${network}:${hash}`;
    let running = this.inFlight.get(key);
    if (!running) {
      running = this.lookup(network, hash).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, running);
    }
    return running;
  }

  private async lookup(network: Network, hash: string): Promise<TransactionLookup> {
    const { index } = this;
    // Two round trips: the transaction with its logs, then its token transfers beside the contracts
    // of its call and logs (read after the transaction, so a block indexed in between shows whole).
    const stored = await index.transactionWithLogs(network, hash);
    let tx: Transaction;
    if (stored) tx = transactionFromStored(stored.transaction, stored.logs);
    else {
      const fromNode = await this.transactionFromNode(network, hash);
      if (!fromNode) return { found: false, transaction: null };
      tx = fromNode;
    }
    // One lookup for the called contract and every contract that logged.
    const addresses = [...new Set([...(tx.to ? [tx.to] : []), ...tx.logs.map((l) => l.address)])];
    const [{ contracts: portal, verified }, tokenTransfers] = await Promise.all([
      this.portal.atAndVerified(network, addresses),
      stored ? this.tokens.transactionTransfers(network, stored.transaction.blockNumber, hash) : null,
    ]);
    if (tokenTransfers) tx.tokenTransfers = tokenTransfers;
    // A portal contract's own ABI first, else the ABI of a verification (docs/api.md, "Verification").
    const abiOf = (address: string) =>
      portal.get(address.toLowerCase())?.abi ?? verified.get(address.toLowerCase())?.abi ?? null;
    const called = tx.to ? abiOf(tx.to) : null;
    // The bounded decoder, checksums between turns of the loop; the call and the logs of one
    // transaction hold 100,000 elements in all, the rest shown raw (docs/api.md "Hostile chain data").
    const budget = new DecodeBudget();
    if (called) {
      const method = await decodeCallAsync(called, tx.input);
      tx.method = method && budget.take(method.args) ? method : null;
    }
    for (const log of tx.logs) {
      const decoded = await decodeLogAsync(abiOf(log.address), log.topics, log.data);
      log.decoded = decoded && budget.take(decoded.args) ? { ...decoded, event: decoded.name } : null;
    }
    return { found: true, transaction: tx };
  }

  private async transactionFromNode(network: Network, hash: string): Promise<Transaction | null> {
    const { reader } = this;
    const [raw, receipt] = await Promise.all([reader.transaction(network, hash), reader.receipt(network, hash)]);
    if (!raw) return null;
    const blockNumber = raw.blockNumber ? hexToNumber(raw.blockNumber) : null;
    const block =
      blockNumber !== null && receipt ? ((await reader.blocks(network, [blockNumber], false))[0] ?? null) : null;
    return transactionFromRpc(raw, receipt, block);
  }
}
