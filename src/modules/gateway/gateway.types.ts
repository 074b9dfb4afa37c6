import { GraphQLSafeInt } from 'graphql-scalars';
import { GraphQLJSON } from '../../kernel/json-scalar';
import { Field, ID, ObjectType } from 'type-graphql';

@ObjectType({ description: 'Result of a read call (eth_call).' })
export class GatewayQueryResult {
  @Field(() => GraphQLJSON, {
    nullable: true,
    description:
      'Decoded return value: one output → the value; several → object by name (array if unnamed); none → null.',
  })
  result!: unknown;

  @Field(() => GraphQLSafeInt, {
    nullable: true,
    description:
      'Block the answer reflects (the head this service knows; REST: the x-block-number header). ' +
      'Null when the head was not known and the call ran at the node’s latest block.',
  })
  blockNumber!: number | null;
}

@ObjectType({ description: 'Result of a write call: the transaction sent from the owner’s custodial wallet.' })
export class GatewayInvokeResult {
  @Field(() => ID, {
    nullable: true,
    description: 'Id of the transaction record (GET /transactions/{id}, gatewayTransaction(id)).',
  })
  transactionId?: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'Transaction hash; null only in an answer given before sending (Prefer: respond-async).',
  })
  txHash!: string | null;

  @Field(() => GraphQLSafeInt, { nullable: true, description: 'Block that included it; null while pending.' })
  blockNumber!: number | null;

  @Field(() => String, { nullable: true, description: 'Gas used (decimal string); null while pending.' })
  gasUsed!: string | null;

  @Field({
    description:
      'success, reverted, pending (no receipt within 60 s), cancelled or failed (its record ended unmined while the ' +
      'answer waited: replaced at its nonce by a cancel, or given up), or queued (Prefer: respond-async: accepted, to be sent).',
  })
  status!: string;

  @Field(() => String, {
    nullable: true,
    description: 'Status reverted: the decoded reason or custom error, from the node’s receipt or a replay.',
  })
  revertReason?: string;
}
