import { Arg, Int, Query, Resolver, Root, Subscription } from 'type-graphql';
import { FEEDS } from '../../kernel/event-bus';
import { NetworkName } from '../../kernel/network-name';
import type { TokensService, TokenTransfersSubscription } from './tokens.service';
import {
  TokenBalances,
  TokenHolderPage,
  TokenLookup,
  TokenPage,
  TokenTransferDirection,
  TokenTransfer,
  TokenTransferPage,
} from './tokens.types';

const NETWORK_ARG = {
  nullable: true,
  defaultValue: NetworkName.mainnet,
  description: 'Network to read: `mainnet` (default) or `testnet`.',
} as const;
const LIMIT_ARG = { nullable: true, description: 'Page size, 1 to 100; default 25.' } as const;
const CURSOR_ARG = { nullable: true, description: 'The `nextCursor` of the previous page.' } as const;
const TYPE_ARG = {
  nullable: true,
  description: 'Only tokens of this standard: `ERC-20`, `ERC-721` or `ERC-1155`.',
} as const;

/** Token transfers, balances, holders and tokens from the explorer's index (docs/api.md, "Tokens"). */
@Resolver()
export class TokensResolver {
  constructor(private readonly service: TokensService) {}

  @Query(() => TokenTransferPage, { description: 'Token transfers to or from an address, newest first.' })
  addressTokenTransfers(
    @Arg('address', { description: 'Address: 0x and 40 hexadecimal characters, any letter case.' }) address: string,
    @Arg('network', () => NetworkName, NETWORK_ARG) network: NetworkName | null,
    @Arg('type', () => String, TYPE_ARG) type: string | null,
    @Arg('token', () => String, { nullable: true, description: 'Only transfers of this token contract.' })
    token: string | null,
    @Arg('direction', () => TokenTransferDirection, {
      nullable: true,
      description: '`in`: transfers to the address; `out`: from it; both when absent.',
    })
    direction: TokenTransferDirection | null,
    @Arg('limit', () => Int, LIMIT_ARG) limit: number | null,
    @Arg('cursor', () => String, CURSOR_ARG) cursor: string | null,
  ): Promise<TokenTransferPage> {
    return this.service.addressTransfers(address, network, type, token, direction, limit, cursor);
  }

  @Query(() => TokenBalances, { description: 'Tokens held by an address, from the index.' })
  addressTokenBalances(
    @Arg('address', { description: 'Address: 0x and 40 hexadecimal characters, any letter case.' }) address: string,
    @Arg('network', () => NetworkName, NETWORK_ARG) network: NetworkName | null,
  ): Promise<TokenBalances> {
    return this.service.addressBalances(address, network);
  }

  @Query(() => TokenPage, { description: 'Tokens seen in the index, by address.' })
  tokens(
    @Arg('network', () => NetworkName, NETWORK_ARG) network: NetworkName | null,
    @Arg('type', () => String, TYPE_ARG) type: string | null,
    @Arg('q', () => String, { nullable: true, description: 'Name or symbol prefix, any letter case.' })
    q: string | null,
    @Arg('limit', () => Int, LIMIT_ARG) limit: number | null,
    @Arg('cursor', () => String, CURSOR_ARG) cursor: string | null,
  ): Promise<TokenPage> {
    return this.service.tokens(network, type, q, limit, cursor);
  }

  @Query(() => TokenLookup, { description: 'A token: metadata, supply, holder and transfer counts.' })
  token(
    @Arg('address', { description: 'Token contract: 0x and 40 hexadecimal characters, any letter case.' })
    address: string,
    @Arg('network', () => NetworkName, NETWORK_ARG) network: NetworkName | null,
  ): Promise<TokenLookup> {
    return this.service.token(address, network);
  }

  @Query(() => TokenHolderPage, { description: 'Holders of a token, by value descending.' })
  tokenHolders(
    @Arg('address', { description: 'Token contract: 0x and 40 hexadecimal characters, any letter case.' })
    address: string,
    @Arg('network', () => NetworkName, NETWORK_ARG) network: NetworkName | null,
    @Arg('limit', () => Int, LIMIT_ARG) limit: number | null,
    @Arg('cursor', () => String, CURSOR_ARG) cursor: string | null,
  ): Promise<TokenHolderPage> {
    return this.service.holders(address, network, limit, cursor);
  }

  @Query(() => TokenTransferPage, { description: 'Transfers of a token, newest first.' })
  tokenTransfers(
    @Arg('address', { description: 'Token contract: 0x and 40 hexadecimal characters, any letter case.' })
    address: string,
    @Arg('network', () => NetworkName, NETWORK_ARG) network: NetworkName | null,
    @Arg('limit', () => Int, LIMIT_ARG) limit: number | null,
    @Arg('cursor', () => String, CURSOR_ARG) cursor: string | null,
  ): Promise<TokenTransferPage> {
    return this.service.tokenTransfers(address, network, limit, cursor);
  }

  @Subscription(() => TokenTransfer, {
    name: 'tokenTransfers',
    description:
      'Every transfer of `token` and/or to or from `address` from `fromBlock` (default: the next block the index ' +
      'takes in), then each new one as the explorer index takes in its block: in (block, log, batch index) order, ' +
      'none missed or repeated. Public.',
    // Each subscriber gets its own feed, read from the index (src/schema/subscriptions.ts).
    topics: FEEDS.tokenTransfers,
    topicId: ({ args }): TokenTransfersSubscription => args as TokenTransfersSubscription,
  })
  tokenTransfersFeed(
    @Root() transfer: TokenTransfer,
    @Arg('network', () => NetworkName, NETWORK_ARG) _network: NetworkName | null,
    @Arg('address', () => String, { nullable: true, description: 'Transfers to or from this address.' })
    _address: string | null,
    @Arg('token', () => String, { nullable: true, description: 'Transfers of this token contract.' })
    _token: string | null,
    @Arg('fromBlock', () => Int, {
      nullable: true,
      description: 'First block to replay, inclusive; default: the next block the index takes in.',
    })
    _fromBlock: number | null,
  ): TokenTransfer {
    return transfer;
  }
}
