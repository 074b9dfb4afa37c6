import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../../auth/request-context';
import type { ApiKeyService } from './keys.service';
import {
  ApiKeyInfo,
  ApiKeyList,
  CreateApiKeyInput,
  CreatedApiKey,
  RevokedApiKey,
  RotateApiKeyInput,
  RotatedApiKey,
  UpdateApiKeyInput,
} from './keys.types';

@Resolver()
export class KeysResolver {
  constructor(private readonly keys: ApiKeyService) {}

  @Mutation(() => CreatedApiKey, {
    description: 'Issues an API key for the gateway; the full key is in this answer only (developer token, own id).',
  })
  createApiKey(
    @Arg('id', () => ID, { description: 'Developer id; must be the caller’s own.' }) id: string,
    @Arg('input', () => CreateApiKeyInput, { nullable: true, description: 'Name, scopes and restrictions.' })
    input: CreateApiKeyInput | null,
    @Ctx() ctx: RequestContext,
  ): Promise<CreatedApiKey> {
    return this.keys.issue(ctx.session, id, input ?? {});
  }

  @Query(() => ApiKeyList, { description: "The caller's API keys, without secrets (developer token, own id)." })
  apiKeys(
    @Arg('id', () => ID, { description: 'Developer id; must be the caller’s own.' }) id: string,
    @Ctx() ctx: RequestContext,
  ): Promise<ApiKeyList> {
    return this.keys.list(ctx.session, id);
  }

  @Mutation(() => RevokedApiKey, { description: 'Revokes an API key of the caller at once, on every instance.' })
  revokeApiKey(
    @Arg('keyId', () => ID, { description: 'Key id.' }) keyId: string,
    @Ctx() ctx: RequestContext,
  ): Promise<RevokedApiKey> {
    return this.keys.revoke(ctx.session, keyId);
  }

  @Mutation(() => ApiKeyInfo, {
    description: 'Changes an API key’s name and policies, on every instance at once (developer token, own key).',
  })
  updateApiKey(
    @Arg('keyId', () => ID, { description: 'Key id.' }) keyId: string,
    @Arg('input', () => UpdateApiKeyInput, { description: 'Fields to change; null lifts a restriction.' })
    input: UpdateApiKeyInput,
    @Ctx() ctx: RequestContext,
  ): Promise<ApiKeyInfo> {
    return this.keys.update(ctx.session, keyId, input);
  }

  @Mutation(() => RotatedApiKey, {
    description: 'A new secret for the same API key; the previous one works for graceSeconds more (developer token).',
  })
  rotateApiKey(
    @Arg('keyId', () => ID, { description: 'Key id.' }) keyId: string,
    @Arg('input', () => RotateApiKeyInput, { nullable: true, description: 'Grace of the previous secret.' })
    input: RotateApiKeyInput | null,
    @Ctx() ctx: RequestContext,
  ): Promise<RotatedApiKey> {
    return this.keys.rotate(ctx.session, keyId, input ?? {});
  }
}
