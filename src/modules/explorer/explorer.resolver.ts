import { Arg, Int, Query, Resolver, Root, Subscription } from 'type-graphql';
import { NetworkName } from '../../kernel/network-name';
import { FEEDS } from '../../kernel/event-bus';
import type { ExplorerService } from './explorer.service';
import {
  AddressLookup,
  BlockLookup,
  BlockSummary,
  LiveBlocks,
  NetworkStatus,
  SearchResults,
  TransactionLookup,
  VerifiedAssets,
} from './explorer.types';

const NETWORK = {
  nullable: true,
  defaultValue: NetworkName.mainnet,
  description: 'Network to read: `mainnet` (default) or `testnet`.',
} as const;

/** The public explorer: read-only, no credentials. */
@Resolver()
export class ExplorerResolver {
  constructor(private readonly explorer: ExplorerService) {}

  @Query(() => LiveBlocks, { description: 'Latest blocks of a network, newest first.' })
  liveBlocks(
    @Arg('network', () => NetworkName, NETWORK) network: NetworkName | null,
    @Arg('limit', () => Int, { nullable: true, description: 'Number of blocks, 1 to 100; default 10.' })
    limit: number | null,
  ): Promise<LiveBlocks> {
    return this.explorer.liveBlocks(network, limit);
  }

  @Query(() => NetworkStatus, {
    description: 'Last block, validators, average block time, RPC health and index progress of a network.',
  })
  networkStatus(@Arg('network', () => NetworkName, NETWORK) network: NetworkName | null): Promise<NetworkStatus> {
    return this.explorer.networkStatus(network);
  }

  @Query(() => SearchResults, {
    description:
      'Searches blocks (by number or hash), transactions (by hash), addresses, and portal contracts and verified assets (by name or symbol prefix).',
  })
  search(
    @Arg('q', { description: 'Block number, 0x hash, 0x address, or the start of a contract name or token symbol.' })
    q: string,
    @Arg('network', () => NetworkName, NETWORK) network: NetworkName | null,
  ): Promise<SearchResults> {
    return this.explorer.search(q, network);
  }

  @Query(() => TransactionLookup, { description: 'A transaction with its receipt and logs, by hash.' })
  transaction(
    @Arg('hash', { description: 'Transaction hash: 0x and 64 hexadecimal characters.' }) hash: string,
    @Arg('network', () => NetworkName, NETWORK) network: NetworkName | null,
  ): Promise<TransactionLookup> {
    return this.explorer.transaction(hash, network);
  }

  @Query(() => BlockLookup, { description: 'A block by number, hash or `latest`.' })
  block(
    @Arg('id', { description: 'Block number (decimal), block hash (0x and 64 hex characters) or `latest`.' })
    id: string,
    @Arg('network', () => NetworkName, NETWORK) network: NetworkName | null,
  ): Promise<BlockLookup> {
    return this.explorer.block(id, network);
  }

  @Query(() => AddressLookup, { description: 'Balance, nonce, code and recent transactions of an address.' })
  address(
    @Arg('address', { description: 'Address: 0x and 40 hexadecimal characters, any letter case.' }) address: string,
    @Arg('network', () => NetworkName, NETWORK) network: NetworkName | null,
    @Arg('limit', () => Int, { nullable: true, description: 'Number of transactions, 1 to 100; default 25.' })
    limit: number | null,
    @Arg('scan', () => Int, {
      nullable: true,
      description:
        'Read activity by scanning this many of the latest blocks over RPC (1 to 5000) instead of the index. ' +
        'Without it, the index is used while it is up to date, else the latest 500 blocks are scanned.',
    })
    scan: number | null,
  ): Promise<AddressLookup> {
    return this.explorer.address(address, network, limit, scan);
  }

  @Query(() => VerifiedAssets, {
    description: 'Recently verified mainnet token assets (ERC-20, ERC-721, ERC-1155 deployed through the portal).',
  })
  recentVerifiedAssets(
    @Arg('limit', () => Int, { nullable: true, description: 'Number of assets, 1 to 100; default 10.' })
    limit: number | null,
    @Arg('network', () => NetworkName, {
      nullable: true,
      description: 'Optional; verified assets are mainnet only, so `testnet` is refused with MAINNET_ONLY.',
    })
    network: NetworkName | null,
  ): Promise<VerifiedAssets> {
    return this.explorer.recentVerifiedAssets(limit, network);
  }

  @Subscription(() => BlockSummary, {
    name: 'liveBlocks',
    description:
      'Pushes every new block of a network, in order and without gaps, as the BlockSummary of the REST views. ' +
      'A subscriber that falls more than 256 blocks behind is ended with an error.',
    // Each subscriber gets the explorer's bounded feed of its network (src/schema/pubsub.ts).
    topics: FEEDS.liveBlocks,
    topicId: ({ args }) => (args as { network?: NetworkName | null }).network,
  })
  liveBlocksFeed(
    @Root() block: BlockSummary,
    @Arg('network', () => NetworkName, NETWORK) _network: NetworkName | null,
  ): BlockSummary {
    return block;
  }
}
