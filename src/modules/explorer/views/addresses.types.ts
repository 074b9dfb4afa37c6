import { GraphQLSafeInt } from 'graphql-scalars';
import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { TransactionStatus } from './transactions.types';

/** Where an address's activity list comes from (docs/api.md, "Explorer"). */
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

@ObjectType({ description: 'The portal contract, or the verified contract, at an address.' })
export class AddressContract {
  @Field(() => ID, {
    nullable: true,
    description: 'Contract id in the portal (UUID); null for a contract verified but not deployed through the portal.',
  })
  id!: string | null;

  @Field({ description: 'Contract name in the portal, or the verified contract’s name.' })
  name!: string;

  @Field({
    description:
      'Whether the code on chain is the code compiled by the portal, or sources were verified by recompiling them.',
  })
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
