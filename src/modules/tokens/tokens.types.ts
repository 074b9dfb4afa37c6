import { GraphQLSafeInt } from 'graphql-scalars';
import { Field, ObjectType, registerEnumType } from 'type-graphql';

/** Which side of a transfer an address list shows (docs/api.md, "Tokens"). */
export enum TokenTransferDirection {
  in = 'in',
  out = 'out',
}
registerEnumType(TokenTransferDirection, {
  name: 'TokenTransferDirection',
  description: 'Side of a token transfer.',
  valuesConfig: {
    in: { description: 'Transfers to the address.' },
    out: { description: 'Transfers from the address.' },
  },
});

/**
 * What names a token, the first fields of TransferToken and TokenInfo (docs/api.md, "Tokens"); a
 * class of its own only for type-graphql's inheritance: no field returns it, so the schema has no
 * such type.
 */
@ObjectType()
abstract class TokenIdentity {
  @Field({ description: 'Token contract (EIP-55).' })
  address!: string;

  @Field({ description: '`ERC-20`, `ERC-721` or `ERC-1155`.' })
  type!: string;

  @Field(() => String, { nullable: true, description: "The token's name; null when it has none or answers garbage." })
  name!: string | null;

  @Field(() => String, { nullable: true, description: "The token's symbol; null when it has none or answers garbage." })
  symbol!: string | null;

  @Field(() => GraphQLSafeInt, { nullable: true, description: 'Decimals of an ERC-20 token; null for ERC-721/1155.' })
  decimals!: number | null;
}

@ObjectType({ description: 'The token of a transfer.' })
export class TransferToken extends TokenIdentity {}

@ObjectType({ description: 'One token transfer (one item per id of an ERC-1155 batch).' })
export class TokenTransfer {
  @Field({ description: 'Transaction hash.' })
  transactionHash!: string;

  @Field(() => GraphQLSafeInt, { description: 'Block number.' })
  blockNumber!: number;

  @Field(() => GraphQLSafeInt, { description: 'Position of the log in its block.' })
  logIndex!: number;

  @Field(() => GraphQLSafeInt, { nullable: true, description: 'Position of the id in an ERC-1155 TransferBatch.' })
  batchIndex!: number | null;

  @Field(() => GraphQLSafeInt, { description: 'Block time, unix seconds.' })
  timestamp!: number;

  @Field({ description: 'Sender (EIP-55); the zero address for a mint.' })
  from!: string;

  @Field({ description: 'Recipient (EIP-55); the zero address for a burn.' })
  to!: string;

  @Field(() => TransferToken, { description: 'The token moved.' })
  token!: TransferToken;

  @Field(() => String, { nullable: true, description: 'Amount (decimal string); none for ERC-721.' })
  value!: string | null;

  @Field(() => String, { nullable: true, description: 'Token id (decimal string); none for ERC-20.' })
  tokenId!: string | null;
}

@ObjectType({ description: 'A page of token transfers, newest first.' })
export class TokenTransferPage {
  @Field(() => [TokenTransfer], { description: 'Transfers, newest first.' })
  items!: TokenTransfer[];

  @Field(() => String, { nullable: true, description: 'Cursor of the next page; null at the end.' })
  nextCursor!: string | null;
}

@ObjectType({ description: 'A token held by an address.' })
export class TokenBalance {
  @Field({ description: 'Token contract (EIP-55).' })
  token!: string;

  @Field({ description: 'Amount held (ERC-20, ERC-1155) or number of tokens held (ERC-721), decimal string.' })
  value!: string;

  @Field(() => String, { nullable: true, description: 'Token id, for ERC-1155 (decimal string).' })
  tokenId!: string | null;
}

@ObjectType({ description: 'Tokens held by an address, from the index.' })
export class TokenBalances {
  @Field(() => [TokenBalance], { description: 'One item per token (and id, for ERC-1155).' })
  items!: TokenBalance[];
}

@ObjectType({ description: 'A token contract seen in the index.' })
export class TokenInfo extends TokenIdentity {
  @Field(() => String, { nullable: true, description: 'totalSupply() (decimal string); null when not answered.' })
  totalSupply!: string | null;

  @Field(() => GraphQLSafeInt, {
    description: 'Holders with a positive balance, each once (ERC-1155: a positive balance of any id).',
  })
  holderCount!: number;

  @Field(() => GraphQLSafeInt, { description: 'Transfer items indexed.' })
  transferCount!: number;
}

@ObjectType({ description: 'Result of a token lookup.' })
export class TokenLookup {
  @Field({ description: 'Whether the index has seen a transfer of this token.' })
  found!: boolean;

  @Field(() => TokenInfo, { nullable: true, description: 'The token, when found.' })
  token!: TokenInfo | null;
}

@ObjectType({ description: 'A page of tokens.' })
export class TokenPage {
  @Field(() => [TokenInfo], { description: 'Tokens, most transferred first.' })
  items!: TokenInfo[];

  @Field(() => String, { nullable: true, description: 'Cursor of the next page; null at the end.' })
  nextCursor!: string | null;
}

@ObjectType({ description: 'A holder of a token.' })
export class TokenHolder {
  @Field({ description: 'Holder (EIP-55).' })
  address!: string;

  @Field({ description: 'Amount held (or number of tokens, ERC-721), decimal string.' })
  value!: string;

  @Field(() => String, { nullable: true, description: 'Token id, for ERC-1155 (decimal string).' })
  tokenId!: string | null;
}

@ObjectType({ description: 'A page of holders, by value descending.' })
export class TokenHolderPage {
  @Field(() => [TokenHolder], { description: 'Holders, largest first.' })
  items!: TokenHolder[];

  @Field(() => String, { nullable: true, description: 'Cursor of the next page; null at the end.' })
  nextCursor!: string | null;
}
