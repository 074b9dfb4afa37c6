import { GraphQLSafeInt } from 'graphql-scalars';
import { Field, ID, ObjectType } from 'type-graphql';
import { NetworkName } from '../../kernel/network-name';

@ObjectType({
  description: 'A faucet payout of test coins (to the caller’s custodial wallet unless `to` named another address).',
})
export class FaucetDrip {
  @Field(() => ID, { description: 'Id of the payout’s transaction record (GET /transactions/{id}).' })
  transactionId!: string;

  @Field({ description: 'Hash of the payout transaction.' })
  txHash!: string;

  @Field(() => NetworkName, { description: 'Always testnet.' })
  network!: string;

  @Field({ description: 'The address that received the coins (EIP-55): `to`, or the caller’s custodial wallet.' })
  to!: string;

  @Field({ description: 'Amount in wei (decimal string): 10 coins.' })
  amountWei!: string;

  @Field({ description: 'Amount in whole coins: "10".' })
  amount!: string;

  @Field(() => GraphQLSafeInt, {
    nullable: true,
    description: 'Block that included the payout; null if not mined within 60 s.',
  })
  blockNumber!: number | null;

  @Field(() => GraphQLSafeInt, { description: 'Drips used today (UTC), this one included.' })
  dripsUsedToday!: number;

  @Field(() => GraphQLSafeInt, { description: 'Drips left today (UTC).' })
  dripsRemainingToday!: number;

  @Field({ description: 'When the daily allowance resets (next UTC midnight).' })
  resetsAt!: Date;
}
