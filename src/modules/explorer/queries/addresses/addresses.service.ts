import { getCreateAddress } from 'ethers';
import type { Network } from '../../../../kernel/network';
import type { NetworkName } from '../../../../kernel/network-name';
import type { BlockIndex } from '../../runtime/block-index';
import type { ChainReader } from '../../runtime/chain-reader';
import { activityFromStored } from '../../views/addresses.views';
import {
  hexToDecimal,
  hexToNumber,
  type RpcReceipt,
  type RpcTransaction,
  type StoredActivity,
} from '../../views/sources';
import { parseAddress } from '../../../../kernel/address';
import { boundedInt, explorerNetwork, LIMITS } from '../explorer-input';
import { functionName } from '../../views/decoded-call';
import type { PortalContract, PortalContracts } from '../../portal/portal-contracts';
import { ActivityKind, type AddressLookup } from '../../views/addresses.types';

/** The index serves address activity while it is at most this many blocks behind the head. */
const MAX_INDEX_LAG_FOR_ACTIVITY = 10;
/** Blocks read in the first round of an RPC scan; each round reads twice as many, up to SCAN_CHUNK_MAX. */
const SCAN_CHUNK_FIRST = 50;
const SCAN_CHUNK_MAX = 800;

/** Addresses: balance, nonce, code, the portal contract there, and recent activity from the index or a scan. */
export class AddressesService {
  constructor(
    private readonly reader: ChainReader,
    private readonly index: BlockIndex,
    private readonly portal: PortalContracts,
  ) {}

  async address(
    addressArg: string,
    networkArg: NetworkName | null | undefined,
    limitArg: number | null | undefined,
    scanArg: number | null | undefined,
  ): Promise<AddressLookup> {
    const { reader, index } = this;
    const network = explorerNetwork(networkArg);
    const address = parseAddress(addressArg, 'address');
    const limit = boundedInt('limit', limitArg, LIMITS.activity);
    const scan = scanArg === null || scanArg === undefined ? null : boundedInt('scan', scanArg, LIMITS.scan);

    // The index's progress and activity are read in one statement beside the node calls (two
    // round trips less), the activity dropped when the index turns out too far behind the head.
    const [balance, nonce, code, head, { state, activity: indexed }] = await Promise.all([
      reader.call<string>(network, 'eth_getBalance', [address, 'latest']),
      reader.call<string>(network, 'eth_getTransactionCount', [address, 'latest']),
      reader.call<string>(network, 'eth_getCode', [address, 'latest']),
      reader.headNumber(network),
      scan === null
        ? index.stateAndActivity(network, address, limit)
        : index.state(network).then((s) => ({ state: s, activity: null })),
    ]);
    const fresh = state !== null && state.haltedReason === null && head - state.lastBlock <= MAX_INDEX_LAG_FOR_ACTIVITY;
    let rows: StoredActivity[];
    let source: ActivityKind;
    if (indexed !== null && fresh) {
      rows = indexed;
      source = ActivityKind.indexed;
    } else {
      rows = await this.scanActivity(network, address, head, scan ?? LIMITS.scan.default, limit);
      source = ActivityKind.scan;
    }

    const involved = [address, ...new Set(rows.map((r) => r.to).filter((t): t is string => t !== null))];
    const { contracts, verified } = await this.portal.atAndVerified(network, involved);
    const activity = rows.map((r) => {
      const abi = r.to ? (contracts.get(r.to.toLowerCase())?.abi ?? verified.get(r.to.toLowerCase())?.abi) : undefined;
      return activityFromStored(r, address, abi && r.methodId ? functionName(abi, r.methodId) : null);
    });

    const own = contracts.get(address.toLowerCase());
    const ownVerified = verified.get(address.toLowerCase());
    const codeSize = (code.length - 2) / 2;
    // Verified: the portal's own record matches the code, or the sources were verified by recompiling.
    const contract = own
      ? { id: own.id, name: own.name, verified: ownVerified !== undefined || (await this.isVerified(own, code)) }
      : ownVerified
        ? { id: null, name: ownVerified.name, verified: true }
        : null;
    const balanceWei = hexToDecimal(balance);
    const nonceNumber = hexToNumber(nonce);
    const found = balanceWei !== '0' || nonceNumber > 0 || codeSize > 0 || activity.length > 0;
    return {
      found,
      info: found ? { address, balanceWei, nonce: nonceNumber, isContract: codeSize > 0, codeSize, contract } : null,
      activity,
      activityKind: activity.length === 0 ? ActivityKind.none : source,
    };
  }

  private async isVerified(contract: PortalContract, code: string): Promise<boolean> {
    return (await this.portal.check(contract, code)).codeMatches;
  }

  /**
   * Address activity from the node: the newest `blocks` blocks, read newest first in rounds of
   * growing rounds, stopping once `limit` transactions are found; receipts only for those.
   */
  private async scanActivity(
    network: Network,
    address: string,
    head: number,
    blocks: number,
    limit: number,
  ): Promise<StoredActivity[]> {
    const { reader } = this;
    const self = address.toLowerCase();
    const lowest = Math.max(0, head - blocks + 1);
    const found: Array<{ tx: RpcTransaction; timestamp: number }> = [];
    let to = head;
    let chunk = SCAN_CHUNK_FIRST;
    while (to >= lowest && found.length < limit) {
      const from = Math.max(lowest, to - chunk + 1);
      const numbers = Array.from({ length: to - from + 1 }, (_, i) => to - i);
      // The scan's own budget: a scan never holds the indexer's slots.
      const fetched = await reader.blocks(network, numbers, true, 'scan');
      for (const block of fetched) {
        if (!block) continue;
        const timestamp = hexToNumber(block.timestamp);
        for (const tx of [...block.transactions].reverse()) {
          const matches =
            tx.from.toLowerCase() === self ||
            tx.to?.toLowerCase() === self ||
            (tx.to === null && getCreateAddress({ from: tx.from, nonce: BigInt(tx.nonce) }).toLowerCase() === self);
          if (matches) found.push({ tx, timestamp });
        }
      }
      to = from - 1;
      chunk = Math.min(SCAN_CHUNK_MAX, chunk * 2);
    }
    const top = found.slice(0, limit);
    const receipts = await reader.receiptsOf(
      network,
      top.map((f) => f.tx.hash),
      'scan',
    );
    return top.map(({ tx, timestamp }, i) => {
      const receipt: RpcReceipt | null = receipts[i] ?? null;
      const input = tx.input ?? '0x';
      return {
        hash: tx.hash.toLowerCase(),
        blockNumber: hexToNumber(tx.blockNumber!),
        transactionIndex: hexToNumber(tx.transactionIndex!),
        timestamp,
        from: tx.from.toLowerCase(),
        to: tx.to ? tx.to.toLowerCase() : null,
        contractAddress: receipt?.contractAddress?.toLowerCase() ?? null,
        value: hexToDecimal(tx.value),
        status: receipt && receipt.status !== undefined && BigInt(receipt.status) !== 1n ? 0 : 1,
        methodId: input.length >= 10 ? input.slice(0, 10).toLowerCase() : null,
      };
    });
  }
}
