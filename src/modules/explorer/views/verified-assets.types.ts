import { Field, ID, Int, ObjectType } from 'type-graphql';
import { NetworkName } from '../../../kernel/network-name';

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
