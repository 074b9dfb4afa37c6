/* eslint-disable @typescript-eslint/no-explicit-any -- GraphQL results are asserted field by field */
import { Wallet } from 'ethers';
import {
  buildClientSchema,
  getIntrospectionQuery,
  parse,
  validate,
  type GraphQLSchema,
  type IntrospectionQuery,
} from 'graphql';
import { createClient, type Client as WsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { signNonce } from '../../src/modules/accounts/eds/dev-ca';
import { issueDeveloperCertificate } from '../kit/login';
import { TOKEN_SOURCE } from '../kit/solidity';
import { startStack, type Stack } from '../kit/stack';

/*
 * Issue 6 over GraphQL: the whole flow with a plain GraphQL-over-HTTP client (every document
 * first validated against the schema the server publishes by introspection, as client tooling
 * does), and live blocks with the graphql-ws client.
 */

let stack: Stack;
let schema: GraphQLSchema;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.stop();
});

class GraphQLRequestError extends Error {
  constructor(readonly errors: Array<{ message: string; extensions?: { code?: string } }>) {
    super(errors.map((e) => `${e.extensions?.code ?? '?'}: ${e.message}`).join('; '));
  }
}

/** A GraphQL-over-HTTP request as any standard client sends it; throws the `errors` of the answer. */
async function request<T = any>(
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<T> {
  if (schema) {
    const problems = validate(schema, parse(query));
    if (problems.length > 0)
      throw new Error(`invalid against the served schema: ${problems.map((p) => p.message).join('; ')}`);
  }
  const res = await fetch(`${stack.url}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json, application/json',
      ...headers,
    },
    body: JSON.stringify({ query, variables }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { data?: T; errors?: GraphQLRequestError['errors'] };
  if (body.errors?.length) throw new GraphQLRequestError(body.errors);
  return body.data as T;
}

/** The `extensions.code` a request fails with. */
async function errorCode(query: string, variables: Record<string, unknown>, headers: Record<string, string> = {}) {
  try {
    await request(query, variables, headers);
  } catch (err) {
    if (err instanceof GraphQLRequestError) return err.errors[0]?.extensions?.code;
    throw err;
  }
  throw new Error('the request succeeded');
}

const wsClient = (connectionParams?: Record<string, unknown>): WsClient =>
  createClient({
    url: `${stack.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams,
    retryAttempts: 0,
  });

describe('the flow through GraphQL with standard clients', () => {
  it('runs login, project, drip, deploy, register, key, query, invoke, revoke and explorer lookups', async () => {
    const introspection = await request<IntrospectionQuery>(getIntrospectionQuery());
    schema = buildClientSchema(introspection);
    const mutations = Object.keys(schema.getMutationType()!.getFields());
    expect(mutations).toEqual(
      expect.arrayContaining([
        'edsChallenge',
        'edsLogin',
        'createProject',
        'faucetDrip',
        'deployContract',
        'registerContractMiddleware',
        'createApiKey',
        'queryContract',
        'invokeContract',
        'revokeApiKey',
      ]),
    );
    expect(Object.keys(schema.getQueryType()!.getFields())).toEqual(
      expect.arrayContaining(['transaction', 'block', 'address', 'search', 'me']),
    );
    expect(Object.keys(schema.getSubscriptionType()!.getFields())).toContain('liveBlocks');

    // Login by EDS.
    const credential = await issueDeveloperCertificate(stack.ca, { commonName: 'GraphQL Client' });
    const { edsChallenge } = await request('mutation { edsChallenge { challengeId nonce expiresAt } }');
    const { edsLogin } = await request(
      `mutation Login($input: EdsLoginInput!) {
        edsLogin(input: $input) { accessToken tokenType expiresIn developer { id displayName walletAddress } }
      }`,
      {
        input: {
          challengeId: edsChallenge.challengeId,
          certificate: credential.certificatePem,
          signature: await signNonce(credential, edsChallenge.nonce),
        },
      },
    );
    expect(edsLogin).toMatchObject({
      tokenType: 'Bearer',
      expiresIn: 43200,
      developer: { displayName: 'GraphQL Client' },
    });
    const dev = { authorization: `Bearer ${edsLogin.accessToken}` };
    const developerId: string = edsLogin.developer.id;
    const wallet: string = edsLogin.developer.walletAddress;

    const { createProject } = await request(
      'mutation($input: CreateProjectInput!) { createProject(input: $input) { id name ownerId } }',
      { input: { name: 'GraphQL project' } },
      dev,
    );
    expect(createProject).toMatchObject({ name: 'GraphQL project', ownerId: developerId });

    const { faucetDrip } = await request(
      'mutation { faucetDrip(network: testnet) { txHash network to amountWei blockNumber dripsUsedToday } }',
      {},
      dev,
    );
    expect(faucetDrip).toMatchObject({
      network: 'testnet',
      to: wallet,
      amountWei: '10000000000000000000',
      dripsUsedToday: 1,
    });

    const { deployContract: contract } = await request(
      `mutation Deploy($input: DeployContractInput!) {
        deployContract(input: $input) { id status network chainId address projectId deployTxHash middleware { registered } }
      }`,
      {
        input: {
          network: 'testnet',
          source: TOKEN_SOURCE,
          constructorArgs: ['1000000000000000000000'],
          projectId: createProject.id,
          name: 'GraphQL Token',
        },
      },
      dev,
    );
    expect(contract).toMatchObject({
      status: 'deployed',
      network: 'testnet',
      chainId: 17991,
      projectId: createProject.id,
      middleware: { registered: false },
    });
    expect(contract.address).toMatch(/^0x[0-9a-fA-F]{40}$/);

    const { registerContractMiddleware } = await request(
      'mutation($id: ID!) { registerContractMiddleware(id: $id) { contractId registered endpoints { query invoke } openapiUrl } }',
      { id: contract.id },
      dev,
    );
    expect(registerContractMiddleware).toMatchObject({ contractId: contract.id, registered: true });

    const { createApiKey } = await request(
      'mutation($id: ID!, $input: CreateApiKeyInput) { createApiKey(id: $id, input: $input) { id apiKey prefix scopes status contractId } }',
      { id: developerId, input: { name: 'graphql', scopes: ['read', 'write'], contractId: contract.id } },
      dev,
    );
    expect(createApiKey).toMatchObject({ status: 'active', scopes: ['read', 'write'], contractId: contract.id });
    expect(createApiKey.apiKey.startsWith(createApiKey.prefix)).toBe(true);
    const key = { 'x-api-key': createApiKey.apiKey };

    // Gateway: query and invoke with the API key.
    const QUERY =
      'mutation Q($id: ID!, $method: String!, $args: JSON) { queryContract(id: $id, method: $method, args: $args) { result } }';
    const balanceOf = async (who: string): Promise<bigint> =>
      BigInt((await request(QUERY, { id: contract.id, method: 'balanceOf', args: [who] }, key)).queryContract.result);
    expect(await balanceOf(wallet)).toBe(10n ** 21n);
    expect((await request(QUERY, { id: contract.id, method: 'symbol' }, key)).queryContract.result).toBe('TST');

    const recipient = Wallet.createRandom().address;
    const { invokeContract } = await request(
      `mutation I($id: ID!, $method: String!, $args: JSON, $gasLimit: String) {
        invokeContract(id: $id, method: $method, args: $args, gasLimit: $gasLimit) { txHash blockNumber gasUsed status }
      }`,
      { id: contract.id, method: 'transfer', args: [recipient, '250'], gasLimit: '200000' },
      key,
    );
    expect(invokeContract).toMatchObject({ status: 'success', txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(invokeContract.blockNumber).toEqual(expect.any(Number));
    expect(BigInt(invokeContract.gasUsed)).toBeGreaterThan(21000n);
    expect(await balanceOf(recipient)).toBe(250n);
    expect(await balanceOf(wallet)).toBe(10n ** 21n - 250n);

    // Revocation: the key stops working at once.
    const { revokeApiKey } = await request(
      'mutation($keyId: ID!) { revokeApiKey(keyId: $keyId) { id status revokedAt } }',
      { keyId: createApiKey.id },
      dev,
    );
    expect(revokeApiKey).toMatchObject({ id: createApiKey.id, status: 'revoked' });
    expect(await errorCode(QUERY, { id: contract.id, method: 'balanceOf', args: [wallet] }, key)).toBe(
      'INVALID_API_KEY',
    );

    // Explorer lookups of the invoke.
    const { transaction } = await request(
      `query Tx($hash: String!) {
        transaction(hash: $hash, network: testnet) {
          found
          transaction { hash blockNumber blockHash from to status gasUsed logs { address topics } method { name signature args { name type value } } }
        }
      }`,
      { hash: invokeContract.txHash },
    );
    expect(transaction).toMatchObject({
      found: true,
      transaction: {
        hash: invokeContract.txHash,
        blockNumber: invokeContract.blockNumber,
        from: wallet,
        to: contract.address,
        status: 'success',
        gasUsed: invokeContract.gasUsed,
        method: { name: 'transfer', signature: 'transfer(address,uint256)' },
      },
    });
    expect(transaction.transaction.method.args.map((a: any) => a.value)).toEqual([recipient, '250']);
    expect(transaction.transaction.logs[0].address).toBe(contract.address);

    const { block } = await request(
      'query B($id: String!) { block(id: $id, network: testnet) { found block { number hash transactionCount transactions } } }',
      { id: String(invokeContract.blockNumber) },
    );
    expect(block).toMatchObject({
      found: true,
      block: { number: invokeContract.blockNumber, hash: transaction.transaction.blockHash },
    });
    expect(block.block.transactions).toContain(invokeContract.txHash);

    const { address } = await request(
      `query A($address: String!) {
        address(address: $address, network: testnet) {
          found activityKind info { address isContract codeSize contract { id name verified } } activity { txHash direction method }
        }
      }`,
      { address: contract.address },
    );
    expect(address).toMatchObject({
      found: true,
      info: { address: contract.address, isContract: true, contract: { id: contract.id, name: 'GraphQL Token' } },
    });

    const { search } = await request(
      `query S($q: String!) {
        search(q: $q, network: testnet) {
          query results { __typename ... on TransactionSearchResult { type hash blockNumber } }
        }
      }`,
      { q: invokeContract.txHash },
    );
    expect(search.results).toEqual([
      {
        __typename: 'TransactionSearchResult',
        type: 'transaction',
        hash: invokeContract.txHash,
        blockNumber: invokeContract.blockNumber,
      },
    ]);

    // Documents that do not fit the schema are refused by the client-side check, before any request.
    await expect(request('query { transaction(hash: "0x", network: devnet) { found } }')).rejects.toThrow(
      /invalid against the served schema/,
    );
  });

  it('answers protected fields over WebSocket with credentials in connectionParams', async () => {
    const credential = await issueDeveloperCertificate(stack.ca, { commonName: 'WebSocket Client' });
    const { edsChallenge } = await request('mutation { edsChallenge { challengeId nonce } }');
    const { edsLogin } = await request(
      'mutation($input: EdsLoginInput!) { edsLogin(input: $input) { accessToken developer { id } } }',
      {
        input: {
          challengeId: edsChallenge.challengeId,
          certificate: credential.certificatePem,
          signature: await signNonce(credential, edsChallenge.nonce),
        },
      },
    );
    const ws = wsClient({ authorization: `Bearer ${edsLogin.accessToken}` });
    try {
      const results: any[] = [];
      for await (const result of ws.iterate({ query: '{ me { id displayName } }' })) results.push(result);
      expect(results).toEqual([{ data: { me: { id: edsLogin.developer.id, displayName: 'WebSocket Client' } } }]);
    } finally {
      await ws.dispose();
    }
  });

  it('receives live blocks with the graphql-ws client: consecutive numbers, in order', async () => {
    const ws = wsClient();
    const blocks: any[] = [];
    try {
      const subscription = ws.iterate({
        query: 'subscription { liveBlocks(network: testnet) { number hash timestamp transactionCount } }',
      });
      for await (const result of subscription) {
        expect(result.errors).toBeUndefined();
        blocks.push((result.data as any).liveBlocks);
        if (blocks.length === 3) break; // ends the subscription (graphql-ws sends complete)
      }
    } finally {
      await ws.dispose();
    }
    expect(blocks).toHaveLength(3);
    for (const b of blocks) {
      expect(b).toEqual({
        number: expect.any(Number),
        hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        timestamp: expect.any(Number),
        transactionCount: expect.any(Number),
      });
    }
    expect(blocks[1].number).toBe(blocks[0].number + 1);
    expect(blocks[2].number).toBe(blocks[1].number + 1);
    expect(blocks[2].timestamp).toBeGreaterThanOrEqual(blocks[0].timestamp);

    // The same blocks through REST, as the explorer serves them.
    const res = await fetch(`${stack.url}/api/explorer/block/${blocks[1].number}?network=testnet`);
    expect(((await res.json()) as any).block).toMatchObject(blocks[1]);
  });
});
