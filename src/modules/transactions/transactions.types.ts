import { GraphQLSafeInt } from 'graphql-scalars';
import { Field, ID, ObjectType } from 'type-graphql';
import { NetworkName } from '../../kernel/network-name';

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
      'queued (accepted, not yet signed), pending (sent, not mined), success, reverted (mined, reverted) or failed (never mined: refused by the node, dropped or not sent; see error).',
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
}

@ObjectType({ description: 'A page of transaction records, newest first.' })
export class GatewayTransactionPage {
  @Field(() => [GatewayTransaction], { description: 'Records, newest first.' })
  items!: GatewayTransaction[];

  @Field(() => String, { nullable: true, description: 'Pass as cursor for the next page; null on the last.' })
  nextCursor!: string | null;
}
