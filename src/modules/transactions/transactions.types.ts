import { GraphQLSafeInt } from 'graphql-scalars';
import { Field, ID, ObjectType } from 'type-graphql';
import { NetworkName } from '../../kernel/network-name';

@ObjectType({ description: 'One change of a transaction record’s status: when, and why.' })
export class TransactionHistoryEntry {
  @Field({ description: 'The status it moved to: queued, pending, success, reverted, failed or cancelled.' })
  status!: string;

  @Field({ description: 'When (ISO-8601 UTC).' })
  at!: string;

  @Field(() => String, {
    nullable: true,
    description: 'The signed transaction it concerns (pending, mined, a failure after broadcast); absent otherwise.',
  })
  txHash!: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'Why: the failure, the revert reason, a cancellation or a retry; absent when there is nothing to say.',
  })
  reason!: string | null;
}

@ObjectType({
  description:
    'A transaction the service sends for an invoke, a deployment or a faucet drip, followed from acceptance to its end.',
})
export class GatewayTransaction {
  @Field(() => ID, { description: 'Record id (UUID).' })
  id!: string;

  @Field({ description: 'invoke, deploy or faucet.' })
  kind!: string;

  @Field(() => NetworkName, { description: 'testnet or mainnet.' })
  network!: string;

  @Field(() => ID, { nullable: true, description: 'The contract invoked or deployed; null for a faucet drip.' })
  contractId!: string | null;

  @Field(() => String, { nullable: true, description: 'Function signature of an invoke; null otherwise.' })
  method!: string | null;

  @Field({
    description:
      'queued (accepted, not yet signed), pending (sent, not mined), success, reverted (mined, reverted), failed (never mined: refused by the node, dropped or not sent; see error) or cancelled (before it was signed, or replaced at its nonce while pending).',
  })
  status!: string;

  @Field(() => String, { nullable: true, description: 'Transaction hash; null until signed.' })
  txHash!: string | null;

  @Field(() => GraphQLSafeInt, { nullable: true, description: 'Nonce; null until signed.' })
  nonce!: number | null;

  @Field(() => GraphQLSafeInt, { nullable: true, description: 'Block that included it; null until mined.' })
  blockNumber!: number | null;

  @Field(() => String, { nullable: true, description: 'Gas used (decimal string); null until mined.' })
  gasUsed!: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'Status reverted: the decoded reason or custom error, when it can be known.',
  })
  revertReason!: string | null;

  @Field(() => String, { nullable: true, description: 'Status failed: why it never reached a block.' })
  error!: string | null;

  @Field({ description: 'When it was accepted (ISO-8601 UTC).' })
  createdAt!: string;

  @Field({ description: 'When its status or details last changed (ISO-8601 UTC).' })
  updatedAt!: string;

  @Field(() => [TransactionHistoryEntry], {
    description: 'Every change of its status, oldest first, from its acceptance (queued) on.',
  })
  history!: TransactionHistoryEntry[];
}

@ObjectType({ description: 'A page of transaction records, newest first.' })
export class GatewayTransactionPage {
  @Field(() => [GatewayTransaction], { description: 'Records, newest first.' })
  items!: GatewayTransaction[];

  @Field(() => String, { nullable: true, description: 'Pass as cursor for the next page; null on the last.' })
  nextCursor!: string | null;
}
