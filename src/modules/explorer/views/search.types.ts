import { GraphQLSafeInt } from 'graphql-scalars';
import { createUnionType, Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { NetworkName } from '../../../kernel/network-name';

/** Kind of a search result. */
export enum SearchResultType {
  block = 'block',
  transaction = 'transaction',
  address = 'address',
  contract = 'contract',
  token = 'token',
}
registerEnumType(SearchResultType, { name: 'SearchResultType', description: 'Kind of a search result.' });

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

@ObjectType({ description: 'A token found by name or symbol prefix (docs/api.md, "Tokens").' })
export class TokenSearchResult {
  @Field(() => SearchResultType, { description: 'Always `token`.' })
  type!: SearchResultType.token;

  @Field({ description: 'Token contract (EIP-55).' })
  address!: string;

  @Field({ description: "The token's name (tokens without a readable name are not found by text)." })
  name!: string;

  @Field(() => String, { nullable: true, description: "The token's symbol." })
  symbol!: string | null;

  @Field(() => NetworkName, { description: 'Network of the token.' })
  network!: NetworkName;
}

export const SearchResult = createUnionType({
  name: 'SearchResult',
  description: 'One search hit; `type` tells which.',
  types: () =>
    [BlockSearchResult, TransactionSearchResult, AddressSearchResult, ContractSearchResult, TokenSearchResult] as const,
  resolveType: (value: { type: SearchResultType }) => {
    switch (value.type) {
      case SearchResultType.block:
        return BlockSearchResult;
      case SearchResultType.transaction:
        return TransactionSearchResult;
      case SearchResultType.address:
        return AddressSearchResult;
      case SearchResultType.token:
        return TokenSearchResult;
      default:
        return ContractSearchResult;
    }
  },
});
export type SearchResult =
  BlockSearchResult | TransactionSearchResult | AddressSearchResult | ContractSearchResult | TokenSearchResult;

@ObjectType({ description: 'Search results.' })
export class SearchResults {
  @Field({ description: 'The query as received (trimmed).' })
  query!: string;

  @Field(() => NetworkName, { description: 'Network searched.' })
  network!: NetworkName;

  @Field(() => [SearchResult], { description: 'Hits: blocks, transactions, addresses, contracts, tokens.' })
  results!: SearchResult[];
}
