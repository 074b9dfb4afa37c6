import { ArrayMaxSize, ArrayMinSize, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';

export enum ApiKeyScopeName {
  read = 'read',
  write = 'write',
}
registerEnumType(ApiKeyScopeName, {
  name: 'ApiKeyScope',
  description: '`read` allows gateway queries, `write` gateway invokes.',
});

@InputType({ description: 'A new API key.' })
export class CreateApiKeyInput {
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
