import type { ChainRegistry } from '../../../../chain/chain-registry';
import { CHAIN_IDS, type Network } from '../../../../kernel/network';
import type { NetworkName } from '../../../../kernel/network-name';
import { checksum } from '../../../../kernel/address';
import type { BlockIndex } from '../../runtime/block-index';
import { NODE_QUICK, type ChainReader } from '../../runtime/chain-reader';
import type { ExplorerRuntime } from '../../runtime/explorer-runtime';
import { summaryFromRpc, summaryFromStored } from '../../views/blocks.views';
import { hexToNumber } from '../../views/sources';
import { explorerNetwork } from '../explorer-input';
import type { LastBlock, NetworkStatus } from '../../views/network-status.types';
import { validatorsFromExtraData } from './qbft-extra-data';

/** Re-ask a node that lacked qbft_getValidatorsByBlockNumber after this long. */
const QBFT_API_REPROBE_MS = 10 * 60_000;
const BLOCK_TIME_WINDOW = 100;

/** A network's status: last block, validators, block time, RPC health, index progress; from memory while the node is down. */
export class NetworkStatusService {
  private readonly lastValidators = new Map<Network, string[]>();
  private readonly qbftApiMissingAt = new Map<Network, number>();

  constructor(
    private readonly reader: ChainReader,
    private readonly index: BlockIndex,
    private readonly runtime: ExplorerRuntime,
    private readonly chains: ChainRegistry,
  ) {}

  async networkStatus(networkArg: NetworkName | null | undefined): Promise<NetworkStatus> {
    const { reader, index } = this;
    const network = explorerNetwork(networkArg);
    const [health, state] = await Promise.all([
      reader.isAvailable(network) ? this.chains.health(network) : null,
      index.state(network),
    ]);
    let lastBlock: LastBlock | null = null;
    let validators: string[] = [];
    let averageBlockTimeSeconds: number | null = null;
    let healthy = health?.healthy ?? false;
    let error = health?.error ?? (health ? null : 'not available');
    if (healthy) {
      try {
        const latest = await reader.latestBlock(network, NODE_QUICK);
        const summary = summaryFromRpc(latest);
        lastBlock = { number: summary.number, hash: summary.hash, timestamp: summary.timestamp };
        [validators, averageBlockTimeSeconds] = await Promise.all([
          this.validators(network, summary.number, latest.extraData ?? '0x', summary.proposer),
          this.averageBlockTime(network, summary.number, summary.timestamp),
        ]);
      } catch (err) {
        // The node went away between the health check and the reads.
        healthy = false;
        error = err instanceof Error ? err.message : 'node error';
        lastBlock = null;
      }
    }
    if (!healthy) {
      // The node is down: the last block this process saw, else the index's last block.
      const known = this.runtime.latestKnown(network);
      const stored = !known && state ? await index.blockByNumber(network, state.lastBlock) : null;
      const last = known ? known.summary : stored ? summaryFromStored(stored) : null;
      if (last) {
        lastBlock = { number: last.number, hash: last.hash, timestamp: last.timestamp };
        validators =
          this.lastValidators.get(network) ??
          this.validatorsOffline(known?.extraData ?? stored?.extraData ?? '0x', last.proposer);
        averageBlockTimeSeconds = await this.averageBlockTimeFromIndex(network, last.number, last.timestamp);
      }
    }
    const lastIndexedBlock = state?.lastBlock ?? null;
    const headForLag = lastBlock?.number ?? null;
    return {
      network: network as NetworkName,
      chainId: CHAIN_IDS[network],
      consensus: 'qbft',
      lastBlock,
      validators,
      validatorCount: validators.length,
      averageBlockTimeSeconds,
      rpc: {
        healthy,
        latencyMs: healthy ? (health?.latencyMs ?? null) : null,
        error: healthy ? null : (error ?? 'node error'),
      },
      indexer: {
        lastIndexedBlock,
        lagBlocks: lastIndexedBlock !== null && headForLag !== null ? Math.max(0, headForLag - lastIndexedBlock) : null,
        haltedReason: state?.haltedReason ?? null,
      },
    };
  }

  /** Validators: qbft_getValidatorsByBlockNumber or istanbul_getValidators, else the extraData's list, else the proposer. */
  private async validators(
    network: Network,
    blockNumber: number,
    extraData: string,
    proposer: string,
  ): Promise<string[]> {
    let validators: string[] | null = null;
    const missingAt = this.qbftApiMissingAt.get(network);
    if (missingAt === undefined || Date.now() - missingAt > QBFT_API_REPROBE_MS) {
      const fromApi = await this.reader.qbftValidators(network, blockNumber);
      if (fromApi === null) this.qbftApiMissingAt.set(network, Date.now());
      else {
        this.qbftApiMissingAt.delete(network);
        validators = fromApi.map(checksum);
      }
    }
    validators ??= this.validatorsOffline(extraData, proposer);
    this.lastValidators.set(network, validators);
    return validators;
  }

  private validatorsOffline(extraData: string, proposer: string): string[] {
    const decoded = validatorsFromExtraData(extraData);
    return decoded && decoded.length > 0 ? decoded : [proposer];
  }

  /** Mean time between the last 100 blocks (fewer on a young chain); null for a chain of one block. */
  private async averageBlockTime(network: Network, head: number, headTimestamp: number): Promise<number | null> {
    const span = Math.min(BLOCK_TIME_WINDOW, head);
    if (span <= 0) return null;
    const stored = await this.index.blockByNumber(network, head - span);
    let older = stored?.timestamp;
    if (older === undefined) {
      const [block] = await this.reader.blocks(network, [head - span], false);
      if (!block) return null;
      older = hexToNumber(block.timestamp);
    }
    return Math.round(((headTimestamp - older) / span) * 1000) / 1000;
  }

  private async averageBlockTimeFromIndex(
    network: Network,
    head: number,
    headTimestamp: number,
  ): Promise<number | null> {
    const span = Math.min(BLOCK_TIME_WINDOW, head);
    if (span <= 0) return null;
    const older = await this.index.blockByNumber(network, head - span);
    return older ? Math.round(((headTimestamp - older.timestamp) / span) * 1000) / 1000 : null;
  }
}
