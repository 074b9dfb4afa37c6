import { GraphQLJSONObject } from '../../kernel/json-scalar';
import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../../auth/request-context';
import type { ContractService } from './contracts.service';
import { NetworkName } from '../../kernel/network-name';
import {
  CompileContractInput,
  CompileOutput,
  Contract,
  ContractPage,
  DeployContractInput,
  MiddlewareRegistration,
} from './contracts.types';

@Resolver()
export class ContractsResolver {
  constructor(private readonly contracts: ContractService) {}

  @Mutation(() => CompileOutput, {
    description: 'Compiles Solidity with solc 0.8.20 (EVM paris); imports only from @openzeppelin/contracts.',
  })
  compileContract(
    @Arg('input', () => CompileContractInput, { description: 'Sources to compile.' }) input: CompileContractInput,
    @Ctx() ctx: RequestContext,
  ): Promise<CompileOutput> {
    return this.contracts.compile(input, ctx.session);
  }

  @Mutation(() => Contract, {
    description:
      'Compiles and deploys from the caller’s custodial wallet: testnet at once, mainnet after approval. ' +
      '`Prefer: respond-async` answers once the checks pass, the contract deploying (REST: 202 with its ' +
      'transaction record to follow).',
  })
  async deployContract(
    @Arg('input', () => DeployContractInput, { description: 'Sources, network and constructor arguments.' })
    input: DeployContractInput,
    @Ctx() ctx: RequestContext,
  ): Promise<Contract> {
    const { contract, accepted } = await this.contracts.deploy(ctx.session, input, {
      respondAsync: ctx.respondAsync,
    });
    // REST answers 202 with the record to follow; GraphQL the contract, still deploying.
    if (accepted) ctx.acceptedBody = accepted;
    return contract;
  }

  @Query(() => Contract, { description: 'A contract record (public).' })
  contract(@Arg('id', () => ID, { description: 'Contract id.' }) id: string): Promise<Contract> {
    return this.contracts.get(id);
  }

  @Query(() => ContractPage, { description: "The caller's contracts, newest first (developer token, own id)." })
  developerContracts(
    @Arg('id', () => ID, { description: 'Developer id; must be the caller’s own.' }) id: string,
    @Arg('network', () => NetworkName, { nullable: true, description: 'Only this network.' })
    network: NetworkName | null,
    @Arg('status', () => String, { nullable: true, description: 'Only this status.' }) status: string | null,
    @Arg('projectId', () => ID, { nullable: true, description: 'Only this project.' }) projectId: string | null,
    @Arg('limit', () => Int, { nullable: true, description: 'Page size, 1 to 100; default 25.' }) limit: number | null,
    @Arg('cursor', () => String, { nullable: true, description: 'nextCursor of the previous page.' })
    cursor: string | null,
    @Ctx() ctx: RequestContext,
  ): Promise<ContractPage> {
    return this.contracts.listForDeveloper(ctx.session, id, { network, status, projectId, limit, cursor });
  }

  @Query(() => ContractPage, { description: 'Contracts awaiting review (administrators only).' })
  adminContracts(
    @Arg('status', () => String, { nullable: true, description: 'Status to list; default compiled.' })
    status: string | null,
    @Arg('limit', () => Int, { nullable: true, description: 'Page size, 1 to 100; default 25.' }) limit: number | null,
    @Arg('cursor', () => String, { nullable: true, description: 'nextCursor of the previous page.' })
    cursor: string | null,
    @Ctx() ctx: RequestContext,
  ): Promise<ContractPage> {
    return this.contracts.adminList(ctx.session, status, limit, cursor);
  }

  @Mutation(() => Contract, {
    description: 'Approves a compiled mainnet contract and deploys it (administrators only).',
  })
  approveContract(
    @Arg('id', () => ID, { description: 'Contract id.' }) id: string,
    @Ctx() ctx: RequestContext,
  ): Promise<Contract> {
    return this.contracts.approve(ctx.session, id);
  }

  @Mutation(() => Contract, { description: 'Rejects a compiled mainnet contract (administrators only).' })
  rejectContract(
    @Arg('id', () => ID, { description: 'Contract id.' }) id: string,
    @Arg('reason', () => String, { nullable: true, description: 'Why, shown to the owner.' }) reason: string | null,
    @Ctx() ctx: RequestContext,
  ): Promise<Contract> {
    return this.contracts.reject(ctx.session, id, reason);
  }

  @Mutation(() => MiddlewareRegistration, {
    description: 'Registers a deployed contract in the gateway (owner’s developer token); idempotent.',
  })
  registerContractMiddleware(
    @Arg('id', () => ID, { description: 'Contract id.' }) id: string,
    @Ctx() ctx: RequestContext,
  ): Promise<MiddlewareRegistration> {
    return this.contracts.registerMiddleware(ctx.session, id);
  }

  @Query(() => GraphQLJSONObject, { description: 'Swagger 2.0 description of a registered contract’s gateway.' })
  contractSwagger(@Arg('id', () => ID, { description: 'Contract id.' }) id: string): Promise<object> {
    return this.contracts.swagger(id);
  }

  @Query(() => GraphQLJSONObject, { description: 'OpenAPI 3.0.3 description of a contract’s gateway (public).' })
  contractOpenApi(@Arg('id', () => ID, { description: 'Contract id.' }) id: string): Promise<object> {
    return this.contracts.openApi(id);
  }
}
