import { GraphQLJSON, GraphQLSafeInt } from 'graphql-scalars';
import { createUnionType, Field, Float, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { NetworkName } from '../../kernel/network-name';

/** Where an address's activity list comes from (API.md §9). */
export enum ActivityKind {
  indexed = 'indexed',
  scan = 'scan',
  none = 'none',
}
registerEnumType(ActivityKind, {
  name: 'ActivityKind',
  description: 'Source of an activity list.',
  valuesConfig: {
    indexed: { description: "From the service's block index." },
    scan: { description: 'From a scan of the most recent blocks over RPC.' },
    none: { description: 'No activity was found.' },
  },
});

/** How a transaction relates to the address whose activity lists it. */
export enum ActivityDirection {
  in = 'in',
  out = 'out',
  self = 'self',
  create = 'create',
}
registerEnumType(ActivityDirection, {
  name: 'ActivityDirection',
  description: 'How a transaction relates to the address.',
  valuesConfig: {
    in: { description: 'Sent to the address.' },
    out: { description: 'Sent by the address.' },
    self: { description: 'Sent by the address to itself.' },
    create: { description: 'A contract creation, sent by the address or creating it.' },
  },
});

/** Outcome of a transaction. */
export enum TransactionStatus {
  success = 'success',
  reverted = 'reverted',
  pending = 'pending',
}
registerEnumType(TransactionStatus, {
  name: 'TransactionStatus',
  description: 'Outcome of a transaction.',
  valuesConfig: {
    success: { description: 'Mined and executed.' },
    reverted: { description: 'Mined, but execution reverted (gas was still paid).' },
    pending: { description: 'Known to the node but not in a block yet.' },
  },
});

/** Kind of a search result. */
export enum SearchResultType {
  block = 'block',
  transaction = 'transaction',
  address = 'address',
  contract = 'contract',
}
registerEnumType(SearchResultType, { name: 'SearchResultType', description: 'Kind of a search result.' });

@ObjectType({ description: 'A block header summary; the same object is pushed by the liveBlocks subscription.' })
export class BlockSummary {
  @Field(() => GraphQLSafeInt, { description: 'Block number.' })
  number!: number;

  @Field({ description: 'Block hash (0x hex).' })
  hash!: string;

  @Field({ description: 'Hash of the parent block (0x hex).' })
  parentHash!: string;

  @Field(() => GraphQLSafeInt, { description: 'Block time, unix seconds.' })
  timestamp!: number;

  @Field({ description: 'QBFT proposer: the header coinbase (on a dev chain, its miner), EIP-55.' })
  proposer!: string;

  @Field(() => GraphQLSafeInt, { description: 'Number of transactions in the block.' })
  transactionCount!: number;

  @Field({ description: 'Gas used by the block (decimal string).' })
  gasUsed!: string;

  @Field({ description: 'Gas limit of the block (decimal string).' })
  gasLimit!: string;
}

@ObjectType({ description: 'Latest blocks of a network, newest first.' })
export class LiveBlocks {
  @Field(() => NetworkName, { description: 'Network the blocks are from.' })
  network!: NetworkName;

  @Field(() => Int, { description: 'Chain id of the network.' })
  chainId!: number;

  @Field(() => [BlockSummary], { description: 'Blocks, newest first.' })
  blocks!: BlockSummary[];
}

@ObjectType({ description: 'A block: its summary, transaction hashes and extraData.' })
export class Block extends BlockSummary {
  @Field(() => [String], { description: 'Hashes of the transactions of the block, in order.' })
  transactions!: string[];

  @Field({ description: 'Raw extraData of the header (0x hex); on QBFT it names validators, vote, round, seals.' })
  extraData!: string;
}

@ObjectType({ description: 'Result of a block lookup.' })
export class BlockLookup {
  @Field({ description: 'Whether the block exists.' })
  found!: boolean;

  @Field(() => Block, { nullable: true, description: 'The block, when found.' })
  block!: Block | null;
}

@ObjectType({ description: 'An event log emitted by a transaction.' })
export class TransactionLog {
  @Field({ description: 'Contract that emitted the log (EIP-55).' })
  address!: string;

  @Field(() => [String], { description: 'Indexed topics (0x hex); the first is the event signature hash.' })
  topics!: string[];

  @Field({ description: 'Non-indexed data (0x hex).' })
  data!: string;

  @Field(() => GraphQLSafeInt, { description: 'Position of the log in its block.' })
  logIndex!: number;
}

@ObjectType({ description: 'One decoded argument of a method call.' })
export class MethodArgument {
  @Field({ description: 'Parameter name in the ABI (may be empty).' })
  name!: string;

  @Field({ description: 'ABI type, e.g. `uint256`, `address`, `(address,uint64)`.' })
  type!: string;

  @Field(() => GraphQLJSON, {
    nullable: true,
    description: 'Value as JSON: integers as decimal strings, addresses EIP-55, bytes as hex, tuples as objects.',
  })
  value!: unknown;
}

@ObjectType({ description: 'A method call decoded with the ABI of a portal contract.' })
export class DecodedMethod {
  @Field({ description: 'Function name.' })
  name!: string;

  @Field({ description: 'Function signature, e.g. `transfer(address,uint256)`.' })
  signature!: string;

  @Field(() => [MethodArgument], { description: 'Arguments, in order.' })
  args!: MethodArgument[];
}

@ObjectType({ description: 'A transaction with its receipt.' })
export class Transaction {
  @Field({ description: 'Transaction hash (0x hex).' })
  hash!: string;

  @Field(() => GraphQLSafeInt, { nullable: true, description: 'Block number; null while pending.' })
  blockNumber!: number | null;

  @Field(() => String, { nullable: true, description: 'Block hash; null while pending.' })
  blockHash!: string | null;

  @Field(() => GraphQLSafeInt, { nullable: true, description: 'Position in the block; null while pending.' })
  transactionIndex!: number | null;

  @Field(() => GraphQLSafeInt, { nullable: true, description: 'Block time, unix seconds; null while pending.' })
  timestamp!: number | null;

  @Field({ description: 'Sender (EIP-55).' })
  from!: string;

  @Field(() => String, { nullable: true, description: 'Recipient (EIP-55); null for a contract creation.' })
  to!: string | null;

  @Field(() => String, { nullable: true, description: 'Contract created by the transaction (EIP-55), if any.' })
  contractAddress!: string | null;

  @Field({ description: 'Value sent, in wei (decimal string).' })
  value!: string;

  @Field(() => GraphQLSafeInt, { description: 'Sender nonce.' })
  nonce!: number;

  @Field({ description: 'Gas limit (decimal string).' })
  gasLimit!: string;

  @Field({ description: 'Gas price paid, in wei (decimal string); the effective price once mined.' })
  gasPrice!: string;

  @Field(() => String, { nullable: true, description: 'Gas used (decimal string); null while pending.' })
  gasUsed!: string | null;

  @Field(() => TransactionStatus, { description: '`success`, `reverted` or `pending`.' })
  status!: TransactionStatus;

  @Field({ description: 'Call data (0x hex).' })
  input!: string;

  @Field(() => [TransactionLog], { description: 'Event logs, in order.' })
  logs!: TransactionLog[];

  @Field(() => DecodedMethod, {
    nullable: true,
    description: 'The decoded call, when `to` is a contract the portal knows and the input matches its ABI.',
  })
  method!: DecodedMethod | null;
}

@ObjectType({ description: 'Result of a transaction lookup.' })
export class TransactionLookup {
  @Field({ description: 'Whether the transaction exists.' })
  found!: boolean;

  @Field(() => Transaction, { nullable: true, description: 'The transaction, when found.' })
  transaction!: Transaction | null;
}

@ObjectType({ description: 'The portal contract deployed at an address.' })
export class AddressContract {
  @Field(() => ID, { description: 'Contract id in the portal (UUID).' })
  id!: string;

  @Field({ description: 'Contract name in the portal.' })
  name!: string;

  @Field({ description: 'Whether the code on chain is the code compiled by the portal.' })
  verified!: boolean;
}

@ObjectType({ description: 'State of an address at the latest block.' })
export class AddressInfo {
  @Field({ description: 'The address (EIP-55).' })
  address!: string;

  @Field({ description: 'Balance in wei (decimal string).' })
  balanceWei!: string;

  @Field(() => GraphQLSafeInt, { description: 'Number of transactions sent (account nonce).' })
  nonce!: number;

  @Field({ description: 'Whether code is deployed at the address.' })
  isContract!: boolean;

  @Field(() => GraphQLSafeInt, { description: 'Size of the deployed code in bytes.' })
  codeSize!: number;

  @Field(() => AddressContract, { nullable: true, description: 'The portal contract at the address, if any.' })
  contract!: AddressContract | null;
}

@ObjectType({ description: 'A transaction involving an address.' })
export class AddressActivity {
  @Field({ description: 'Transaction hash.' })
  txHash!: string;

  @Field(() => GraphQLSafeInt, { description: 'Block number.' })
  blockNumber!: number;

  @Field(() => GraphQLSafeInt, { description: 'Block time, unix seconds.' })
  timestamp!: number;

  @Field({ description: 'Sender (EIP-55).' })
  from!: string;

  @Field(() => String, { nullable: true, description: 'Recipient (EIP-55); null for a contract creation.' })
  to!: string | null;

  @Field({ description: 'Value sent, in wei (decimal string).' })
  value!: string;

  @Field(() => ActivityDirection, { description: '`in`, `out`, `self` or `create`.' })
  direction!: ActivityDirection;

  @Field(() => TransactionStatus, { description: '`success` or `reverted`.' })
  status!: TransactionStatus;

  @Field(() => String, {
    nullable: true,
    description: 'Name of the method called, when the portal knows the contract.',
  })
  method!: string | null;
}

@ObjectType({ description: 'Result of an address lookup.' })
export class AddressLookup {
  @Field({ description: 'Whether the address has a balance, a nonce, code or activity.' })
  found!: boolean;

  @Field(() => AddressInfo, { nullable: true, description: 'State of the address, when found.' })
  info!: AddressInfo | null;

  @Field(() => [AddressActivity], { description: 'Transactions involving the address, newest first.' })
  activity!: AddressActivity[];

  @Field(() => ActivityKind, { description: '`indexed`, `scan` or `none`: where the activity comes from.' })
  activityKind!: ActivityKind;
}

@ObjectType({ description: 'The latest block known.' })
export class LastBlock {
  @Field(() => GraphQLSafeInt, { description: 'Block number.' })
  number!: number;

  @Field({ description: 'Block hash.' })
  hash!: string;

  @Field(() => GraphQLSafeInt, { description: 'Block time, unix seconds.' })
  timestamp!: number;
}

@ObjectType({ description: 'Health of the RPC node of a network.' })
export class RpcHealth {
  @Field({ description: 'Whether the node answered within 2 seconds.' })
  healthy!: boolean;

  @Field(() => Int, { nullable: true, description: 'Round-trip time of eth_blockNumber in ms; null when down.' })
  latencyMs!: number | null;

  @Field(() => String, { nullable: true, description: 'Short reason when unhealthy.' })
  error!: string | null;
}

@ObjectType({ description: "Progress of the service's block index." })
export class IndexerProgress {
  @Field(() => GraphQLSafeInt, { nullable: true, description: 'Last block in the index; null before the first.' })
  lastIndexedBlock!: number | null;

  @Field(() => GraphQLSafeInt, {
    nullable: true,
    description: 'Blocks the index is behind the latest known block; null when unknown.',
  })
  lagBlocks!: number | null;

  @Field(() => String, {
    nullable: true,
    description:
      'Why indexing of this network stopped (the node serves another chain than the one indexed); null while it runs. ' +
      'The README tells how to re-index.',
  })
  haltedReason!: string | null;
}

@ObjectType({ description: 'Summary of a network: last block, validators, block time, RPC health, index.' })
export class NetworkStatus {
  @Field(() => NetworkName, { description: 'The network.' })
  network!: NetworkName;

  @Field(() => Int, { description: 'Chain id of the network.' })
  chainId!: number;

  @Field({ description: 'Consensus protocol: `qbft`.' })
  consensus!: string;

  @Field(() => LastBlock, { nullable: true, description: 'Latest block (the last known one while the node is down).' })
  lastBlock!: LastBlock | null;

  @Field(() => [String], { description: 'Validator addresses (EIP-55).' })
  validators!: string[];

  @Field(() => Int, { description: 'Number of validators.' })
  validatorCount!: number;

  @Field(() => Float, { nullable: true, description: 'Average block time over the last 100 blocks, in seconds.' })
  averageBlockTimeSeconds!: number | null;

  @Field(() => RpcHealth, { description: 'RPC node health.' })
  rpc!: RpcHealth;

  @Field(() => IndexerProgress, { description: 'Block index progress.' })
  indexer!: IndexerProgress;
}

@ObjectType({ description: 'A block found by number or hash.' })
export class BlockSearchResult {
  @Field(() => SearchResultType, { description: 'Always `block`.' })
  type!: SearchResultType.block;

  @Field(() => GraphQLSafeInt, { description: 'Block number.' })
  number!: number;

  @Field({ description: 'Block hash.' })
  hash!: string;
}

@ObjectType({ description: 'A transaction found by hash.' })
export class TransactionSearchResult {
  @Field(() => SearchResultType, { description: 'Always `transaction`.' })
  type!: SearchResultType.transaction;

  @Field({ description: 'Transaction hash.' })
  hash!: string;

  @Field(() => GraphQLSafeInt, { nullable: true, description: 'Block number; null while pending.' })
  blockNumber!: number | null;
}

@ObjectType({ description: 'An address (account or contract).' })
export class AddressSearchResult {
  @Field(() => SearchResultType, { description: 'Always `address`.' })
  type!: SearchResultType.address;

  @Field({ description: 'The address (EIP-55).' })
  address!: string;

  @Field({ description: 'Whether code is deployed at the address.' })
  isContract!: boolean;
}

@ObjectType({ description: 'A portal contract (or verified asset) found by address, name or symbol.' })
export class ContractSearchResult {
  @Field(() => SearchResultType, { description: 'Always `contract`.' })
  type!: SearchResultType.contract;

  @Field({ description: 'Contract address (EIP-55).' })
  address!: string;

  @Field(() => ID, { description: 'Contract id in the portal (UUID).' })
  contractId!: string;

  @Field({ description: 'Contract name in the portal.' })
  name!: string;

  @Field(() => NetworkName, { description: 'Network the contract is deployed on.' })
  network!: NetworkName;
}

export const SearchResult = createUnionType({
  name: 'SearchResult',
  description: 'One search hit; `type` tells which.',
  types: () => [BlockSearchResult, TransactionSearchResult, AddressSearchResult, ContractSearchResult] as const,
  resolveType: (value: { type: SearchResultType }) => {
    switch (value.type) {
      case SearchResultType.block:
        return BlockSearchResult;
      case SearchResultType.transaction:
        return TransactionSearchResult;
      case SearchResultType.address:
        return AddressSearchResult;
      default:
        return ContractSearchResult;
    }
  },
});
export type SearchResult = BlockSearchResult | TransactionSearchResult | AddressSearchResult | ContractSearchResult;

@ObjectType({ description: 'Search results.' })
export class SearchResults {
  @Field({ description: 'The query as received (trimmed).' })
  query!: string;

  @Field(() => NetworkName, { description: 'Network searched.' })
  network!: NetworkName;

  @Field(() => [SearchResult], { description: 'Hits: blocks, transactions, addresses, contracts.' })
  results!: SearchResult[];
}

@ObjectType({ description: 'A token deployed on mainnet through the portal whose on-chain code matches its source.' })
export class VerifiedAsset {
  @Field(() => ID, { description: 'Contract id in the portal (UUID).' })
  contractId!: string;

  @Field({ description: 'Token address (EIP-55).' })
  address!: string;

  @Field({ description: 'Token name (from `name()`, else the portal contract name).' })
  name!: string;

  @Field(() => String, { nullable: true, description: 'Token symbol (from `symbol()`), if it has one.' })
  symbol!: string | null;

  @Field(() => Int, { nullable: true, description: 'Decimals (from `decimals()`), for ERC-20 tokens.' })
  decimals!: number | null;

  @Field({ description: '`ERC-20`, `ERC-721` or `ERC-1155`, detected from the ABI.' })
  standard!: string;

  @Field({ description: 'When the explorer verified the code (ISO-8601 UTC).' })
  verifiedAt!: Date;
}

@ObjectType({ description: 'Recently verified assets, newest first.' })
export class VerifiedAssets {
  @Field(() => NetworkName, { description: 'Always `mainnet`.' })
  network!: NetworkName;

  @Field(() => [VerifiedAsset], { description: 'Assets, newest first.' })
  assets!: VerifiedAsset[];
}
