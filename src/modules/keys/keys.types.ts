import { ArrayMaxSize, ArrayMinSize, IsInt, IsOptional, IsString, IsUUID, Max, MaxLength, Min } from 'class-validator';
import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';

/** Entries of one policy kind a key may hold (docs/api.md, "API keys": policies). */
export const MAX_POLICY_ENTRIES = 100;
/** Longest grace a rotation gives the previous secret: 7 days (docs/api.md, "API keys": rotation). */
export const MAX_GRACE_SECONDS = 604_800;

export enum ApiKeyScopeName {
  read = 'read',
  write = 'write',
}
registerEnumType(ApiKeyScopeName, {
  name: 'ApiKeyScope',
  description: '`read` allows gateway queries, `write` gateway invokes.',
});

/** A cap: a decimal string of wei or gas, at most 78 digits (checked by the key service). */
export const CAP_PATTERN = /^(0|[1-9][0-9]{0,77})$/;

@InputType({ description: 'Spend caps of a key: each a decimal string; left out or null, no cap.' })
export class SpendCapsInput {
  @Field(() => String, { nullable: true, description: 'Value (wei) one transaction may carry.' })
  @IsOptional()
  maxValueWeiPerTx?: string | null;

  @Field(() => String, { nullable: true, description: 'Value (wei) the transactions of one UTC day may carry.' })
  @IsOptional()
  maxValueWeiPerDay?: string | null;

  @Field(() => String, { nullable: true, description: 'Fee per gas (wei): maxFeePerGas or gasPrice.' })
  @IsOptional()
  maxFeePerGasWei?: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'Gas of one UTC day: gas used, the gas limit while a transaction is pending.',
  })
  @IsOptional()
  maxGasPerDay?: string | null;
}

@ObjectType({ description: 'Spend caps of a key: null, no cap.' })
export class SpendCapsInfo {
  @Field(() => String, { nullable: true, description: 'Value (wei) one transaction may carry.' })
  maxValueWeiPerTx!: string | null;

  @Field(() => String, { nullable: true, description: 'Value (wei) the transactions of one UTC day may carry.' })
  maxValueWeiPerDay!: string | null;

  @Field(() => String, { nullable: true, description: 'Fee per gas (wei): maxFeePerGas or gasPrice.' })
  maxFeePerGasWei!: string | null;

  @Field(() => String, { nullable: true, description: 'Gas of one UTC day.' })
  maxGasPerDay!: string | null;
}

/**
 * The policy fields a key is created with and changed by (docs/api.md, "API keys"); an input of its
 * own only for type-graphql's inheritance, never an argument.
 */
@InputType('ApiKeyPolicyFields')
abstract class KeyPolicyFields {
  @Field(() => [ID], {
    nullable: true,
    description: 'Restrict the key to these contracts of the caller (contractId is the one-element form).',
  })
  @IsOptional()
  @ArrayMinSize(1, { message: 'contractIds must not be empty' })
  @ArrayMaxSize(MAX_POLICY_ENTRIES, { message: `contractIds holds at most ${MAX_POLICY_ENTRIES} entries` })
  @IsUUID('all', { each: true, message: 'contractIds must be UUIDs' })
  contractIds?: string[] | null;

  @Field(() => [String], {
    nullable: true,
    description: 'Exact origins (scheme://host[:port]) the key is accepted from.',
  })
  @IsOptional()
  @ArrayMinSize(1, { message: 'allowedOrigins must not be empty' })
  @ArrayMaxSize(MAX_POLICY_ENTRIES, { message: `allowedOrigins holds at most ${MAX_POLICY_ENTRIES} entries` })
  @IsString({ each: true })
  @MaxLength(300, { each: true })
  allowedOrigins?: string[] | null;

  @Field(() => [String], { nullable: true, description: 'Client addresses and CIDR blocks the key is accepted from.' })
  @IsOptional()
  @ArrayMinSize(1, { message: 'allowedIps must not be empty' })
  @ArrayMaxSize(MAX_POLICY_ENTRIES, { message: `allowedIps holds at most ${MAX_POLICY_ENTRIES} entries` })
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  allowedIps?: string[] | null;

  @Field(() => [String], {
    nullable: true,
    description: 'Gateway methods (name or signature) and JSON-RPC methods the key may call.',
  })
  @IsOptional()
  @ArrayMinSize(1, { message: 'allowedMethods must not be empty' })
  @ArrayMaxSize(MAX_POLICY_ENTRIES, { message: `allowedMethods holds at most ${MAX_POLICY_ENTRIES} entries` })
  @IsString({ each: true })
  @MaxLength(300, { each: true })
  allowedMethods?: string[] | null;

  @Field(() => Date, { nullable: true, description: 'The key stops working at this moment.' })
  @IsOptional()
  expiresAt?: Date | null;

  @Field(() => Int, { nullable: true, description: "Requests per second for this key, at most the service's." })
  @IsOptional()
  @IsInt()
  @Min(1)
  rateLimitPerSecond?: number | null;

  @Field(() => Int, { nullable: true, description: 'Requests per UTC day, counted by every instance together.' })
  @IsOptional()
  @IsInt()
  @Min(1)
  dailyQuota?: number | null;

  @Field(() => SpendCapsInput, { nullable: true, description: 'Spend caps (null lifts them all).' })
  @IsOptional()
  spend?: SpendCapsInput | null;
}

@InputType({ description: 'A new API key.' })
export class CreateApiKeyInput extends KeyPolicyFields {
  @Field({ nullable: true, description: 'Human-readable name, up to 100 characters.' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  name?: string;

  @Field(() => [ApiKeyScopeName], { nullable: true, description: 'Granted scopes; default ["read", "write"].' })
  @IsOptional()
  @ArrayMinSize(1, { message: 'scopes must not be empty' })
  @ArrayMaxSize(2)
  scopes?: ApiKeyScopeName[];

  @Field(() => ID, { nullable: true, description: 'Restrict the key to this contract of the caller.' })
  @IsOptional()
  @IsUUID('all', { message: 'contractId must be a UUID' })
  contractId?: string;

  @Field(() => ID, { nullable: true, description: 'Link the key to this project of the caller.' })
  @IsOptional()
  @IsUUID('all', { message: 'projectId must be a UUID' })
  projectId?: string;
}

@InputType({ description: 'Changes to an API key: a field left out stays as it is, null lifts its restriction.' })
export class UpdateApiKeyInput extends KeyPolicyFields {
  @Field(() => String, { nullable: true, description: 'Human-readable name, up to 100 characters.' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  name?: string | null;

  @Field(() => ID, { nullable: true, description: 'The one-element form of contractIds (null lifts the restriction).' })
  @IsOptional()
  @IsUUID('all', { message: 'contractId must be a UUID' })
  contractId?: string | null;
}

@InputType({ description: 'A rotation of an API key.' })
export class RotateApiKeyInput {
  @Field(() => Int, {
    nullable: true,
    description: 'Seconds the previous secret keeps working, 0..604800; default 86400.',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_GRACE_SECONDS)
  graceSeconds?: number;
}

@ObjectType({ description: 'A rotated API key: the only time the new secret is shown.' })
export class RotatedApiKey {
  @Field(() => ID, { description: 'Key id (unchanged).' })
  id!: string;

  @Field({ description: 'The new full key (svc_...). Store it now: it is never shown again.' })
  apiKey!: string;

  @Field({ description: 'First 12 characters of the new key.' })
  prefix!: string;

  @Field({ description: 'The previous secret works until this moment.' })
  previousKeyValidUntil!: Date;
}

@ObjectType({ description: 'An API key as listed: never the key itself.' })
export class ApiKeyInfo {
  @Field(() => ID, { description: 'Key id.' })
  id!: string;

  @Field(() => String, { nullable: true, description: 'Human-readable name.' })
  name!: string | null;

  @Field({ description: 'First 12 characters of the key, for recognising it.' })
  prefix!: string;

  @Field(() => [ApiKeyScopeName], { description: 'Granted scopes.' })
  scopes!: string[];

  @Field(() => ID, { nullable: true, description: 'The only contract the key works with, if restricted.' })
  contractId!: string | null;

  @Field(() => ID, { nullable: true, description: 'Linked project.' })
  projectId!: string | null;

  @Field({ description: 'active or revoked.' })
  status!: string;

  @Field({ description: 'When the key was issued.' })
  createdAt!: Date;

  @Field(() => Date, { nullable: true, description: 'Last gateway use (may lag by up to 60 s).' })
  lastUsedAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'When the key was revoked.' })
  revokedAt!: Date | null;

  @Field(() => [ID], { nullable: true, description: 'The contracts the key works with, if restricted.' })
  contractIds!: string[] | null;

  @Field(() => [String], { nullable: true, description: 'Origins the key is accepted from, if restricted.' })
  allowedOrigins!: string[] | null;

  @Field(() => [String], {
    nullable: true,
    description: 'Addresses and CIDR blocks the key is accepted from, if restricted.',
  })
  allowedIps!: string[] | null;

  @Field(() => [String], { nullable: true, description: 'Methods the key may call, if restricted.' })
  allowedMethods!: string[] | null;

  @Field(() => Date, { nullable: true, description: 'When the key stops working.' })
  expiresAt!: Date | null;

  @Field(() => Int, { nullable: true, description: 'Requests per second for this key, if lower than the service’s.' })
  rateLimitPerSecond!: number | null;

  @Field(() => Int, { nullable: true, description: 'Requests per UTC day, if limited.' })
  dailyQuota!: number | null;

  @Field(() => SpendCapsInfo, { nullable: true, description: 'Spend caps, if any.' })
  spend!: SpendCapsInfo | null;

  @Field(() => Int, { description: 'Requests counted today (UTC).' })
  requestsToday!: number;

  @Field({ description: 'Wei spent today (UTC) by transactions sent with the key.' })
  spentTodayWei!: string;
}

@ObjectType({ description: 'A newly issued API key: the only time the full key is shown.' })
export class CreatedApiKey {
  @Field(() => ID, { description: 'Key id.' })
  id!: string;

  @Field({ description: 'The full key (svc_...). Store it now: it is never shown again.' })
  apiKey!: string;

  @Field({ description: 'First 12 characters of the key.' })
  prefix!: string;

  @Field(() => [ApiKeyScopeName], { description: 'Granted scopes.' })
  scopes!: string[];

  @Field(() => String, { nullable: true, description: 'Human-readable name.' })
  name!: string | null;

  @Field(() => ID, { nullable: true, description: 'The only contract the key works with, if restricted.' })
  contractId!: string | null;

  @Field(() => ID, { nullable: true, description: 'Linked project.' })
  projectId!: string | null;

  @Field({ description: 'Always active.' })
  status!: string;

  @Field({ description: 'When the key was issued.' })
  createdAt!: Date;
}

@ObjectType({ description: 'The developer’s API keys.' })
export class ApiKeyList {
  @Field(() => [ApiKeyInfo], { description: 'Keys, oldest first.' })
  items!: ApiKeyInfo[];
}

@ObjectType({ description: 'A revoked API key.' })
export class RevokedApiKey {
  @Field(() => ID, { description: 'Key id.' })
  id!: string;

  @Field({ description: 'Always revoked.' })
  status!: string;

  @Field({ description: 'When the key was revoked.' })
  revokedAt!: Date;
}
