import { GraphQLSafeInt } from 'graphql-scalars';
import { Field, ID, ObjectType } from 'type-graphql';
import { NetworkName } from '../../kernel/network-name';

@ObjectType({ description: 'Native coin balance of an address.' })
export class WalletBalance {
  @Field({ description: 'The address (EIP-55).' })
  address!: string;

  @Field(() => NetworkName, { description: 'Network the balance was read on.' })
  network!: string;

  @Field(() => GraphQLSafeInt, { description: 'Chain id of the network.' })
  chainId!: number;

  @Field({ description: 'Balance in wei, as a decimal string.' })
  balanceWei!: string;

  @Field({ description: 'Balance in whole coins, as a decimal string (e.g. "10.0").' })
  balance!: string;
}

@ObjectType({ description: 'A transaction of a custodial wallet.' })
export class WalletHistoryItem {
  @Field({ description: 'Transaction hash.' })
  txHash!: string;

  @Field({ description: 'faucet, deploy, invoke, transfer-in or transfer-out.' })
  kind!: string;

  @Field({ description: 'Sender (EIP-55).' })
  from!: string;

  @Field(() => String, { nullable: true, description: 'Recipient (EIP-55); null for contract creation.' })
  to!: string | null;

  @Field({ description: 'Value sent, in wei (decimal string).' })
  valueWei!: string;

  @Field(() => String, { nullable: true, description: 'Gas used (decimal string); null until mined.' })
  gasUsed!: string | null;

  @Field({
    description: 'pending, success, reverted, or failed (sent by the service but never mined: refused or dropped).',
  })
  status!: string;

  @Field(() => GraphQLSafeInt, { nullable: true, description: 'Block number; null until mined.' })
  blockNumber!: number | null;

  @Field(() => GraphQLSafeInt, { nullable: true, description: 'Block timestamp (unix seconds); null until mined.' })
  timestamp!: number | null;

  @Field(() => ID, { nullable: true, description: 'Portal contract deployed or called, if any.' })
  contractId?: string | null;

  @Field(() => String, { nullable: true, description: 'Contract method invoked, if any.' })
  method?: string | null;
}

@ObjectType({ description: 'A page of a wallet’s transactions, newest first.' })
export class WalletHistory {
  @Field({ description: 'The wallet address (EIP-55).' })
  address!: string;

  @Field(() => NetworkName, { description: 'Network of the transactions.' })
  network!: string;

  @Field(() => [WalletHistoryItem], { description: 'Transactions, newest first.' })
  items!: WalletHistoryItem[];

  @Field(() => String, { nullable: true, description: 'Pass as `cursor` for the next page; null at the end.' })
  nextCursor!: string | null;
}
