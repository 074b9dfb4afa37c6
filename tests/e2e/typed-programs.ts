/*
 * Client programs a developer would write against the types openapi-typescript generates from the
 * service's documents. They are only type-checked (`tsc --noEmit --strict`), never run: the test
 * runs the same calls with openapi-fetch. Each `const x: T = null` line states that real responses
 * carry null there (GraphQL nullable fields), so the generated types must allow it.
 */

/** The whole developer portal and explorer flow, typed by `devportal.ts` and `explorer.ts`. */
export const SERVICE_PROGRAM = `
import createClient from 'openapi-fetch';
import type { components as DevComponents, paths as DevPaths } from './devportal';
import type { components as ExplorerComponents, paths as ExplorerPaths } from './explorer';

type Dev = DevComponents['schemas'];
type Ex = ExplorerComponents['schemas'];

function must<T>(r: { data?: T; error?: unknown; response: Response }): T {
  if (r.data === undefined) throw new Error(\`\${r.response.status} \${JSON.stringify(r.error)}\`);
  return r.data;
}

export async function portalFlow(
  baseUrl: string,
  certificatePem: string,
  sign: (nonce: string) => Promise<string>,
  tokenSource: string,
): Promise<{ contractId: string; address: string; apiKey: string; keyId: string; developerId: string; token: string }> {
  const api = createClient<DevPaths>({ baseUrl });

  const challenge: Dev['EdsChallenge'] = must(await api.POST('/api/devportal/auth/eds/challenge'));
  const login = must(
    await api.POST('/api/devportal/auth/eds/login', {
      body: { challengeId: challenge.challengeId, certificate: certificatePem, signature: await sign(challenge.nonce) },
    }),
  );
  const token: string = login.accessToken;
  const expiresIn: number = login.expiresIn;
  const developerId: string = login.developer.id;
  const wallet: string = login.developer.walletAddress;
  const headers = { authorization: \`Bearer \${token}\` };

  const me: Dev['Developer'] = must(await api.GET('/api/devportal/auth/me', { headers }));
  const project = must(
    await api.POST('/api/devportal/projects', { headers, body: { name: 'Generated client', description: 'e2e' } }),
  );
  const noDescription: Dev['Project']['description'] = null;

  const drip = must(await api.POST('/api/devportal/faucet/drip', { headers, body: { network: 'testnet' } }));
  const dripDefault = await api.POST('/api/devportal/faucet/drip', { headers, body: {} });
  const amountWei: string = drip.amountWei;
  const remaining: number = drip.dripsRemainingToday;
  const pendingDrip: Dev['FaucetDrip']['blockNumber'] = null;
  const balance = must(
    await api.GET('/api/devportal/wallets/{address}/balance', { params: { path: { address: wallet } } }),
  );
  const balanceWei: string = balance.balanceWei;

  const deployed = must(
    await api.POST('/api/devportal/contracts/deploy', {
      headers,
      body: {
        network: 'testnet',
        source: tokenSource,
        constructorArgs: ['1000000000000000000000'],
        projectId: project.id,
        name: 'Generated Token',
      },
    }),
  );
  // Without Prefer: respond-async the answer is the 201's contract, not the 202's record to follow.
  if (!('id' in deployed)) throw new Error('deploy answered 202 without Prefer: respond-async');
  const contract: Dev['Contract'] = deployed;
  const contractId: string = contract.id;
  const address: string | null | undefined = contract.address;
  const chainId: number = contract.chainId;
  const abi: Array<Record<string, unknown>> = contract.abi;
  const registeredBefore: boolean = contract.middleware.registered;
  const statusReason: Dev['Contract']['statusReason'] = null;
  const approvedAt: Dev['Contract']['approvedAt'] = null;
  const notRegisteredAt: Dev['MiddlewareState']['registeredAt'] = null;

  const record: Dev['Contract'] = must(
    await api.GET('/api/devportal/contracts/{id}', { params: { path: { id: contractId } } }),
  );
  const mine = must(
    await api.GET('/api/devportal/developers/{id}/contracts', {
      headers,
      params: { path: { id: developerId }, query: { network: 'testnet', status: 'deployed', limit: 10 } },
    }),
  );
  const lastPage: Dev['ContractPage']['nextCursor'] = null;

  const registration = must(
    await api.POST('/api/devportal/contracts/{id}/register-middleware', {
      headers,
      params: { path: { id: contractId } },
    }),
  );
  const openapiUrl: string = registration.openapiUrl;
  const queryTemplate: string = registration.endpoints.query;
  const spec: Record<string, unknown> = must(
    await api.GET('/api/devportal/contracts/{id}/openapi.json', { params: { path: { id: contractId } } }),
  );

  const key = must(
    await api.POST('/api/devportal/developers/{id}/api-keys', {
      headers,
      params: { path: { id: developerId } },
      body: { name: 'ci', scopes: ['read', 'write'], contractId, projectId: project.id },
    }),
  );
  const apiKey: string = key.apiKey;
  const scopes: Array<'read' | 'write'> = key.scopes;
  const keys = must(await api.GET('/api/devportal/developers/{id}/api-keys', { headers, params: { path: { id: developerId } } }));
  const neverUsed: Dev['ApiKeyInfo']['lastUsedAt'] = null;
  const notRevoked: Dev['ApiKeyInfo']['revokedAt'] = null;

  // The generic gateway routes of the portal document (the contract's own document is typed apart).
  const query = must(
    await api.POST('/api/devportal/contracts/{id}/query/{method}', {
      headers: { 'x-api-key': apiKey },
      params: { path: { id: contractId, method: 'balanceOf' } },
      body: { args: [wallet] },
    }),
  );
  const result: unknown = query.result;
  const invoke = must(
    await api.POST('/api/devportal/contracts/{id}/invoke/{method}', {
      headers: { 'x-api-key': apiKey },
      params: { path: { id: contractId, method: 'transfer' } },
      body: { args: [wallet, '1'], gasLimit: '200000' },
    }),
  );
  // Likewise the invoke: only a 202 (Prefer: respond-async) lacks txHash.
  if (!('txHash' in invoke)) throw new Error('invoke answered 202 without Prefer: respond-async');
  const txHash: string = invoke.txHash;
  const pendingBlock: Dev['GatewayInvokeResult']['blockNumber'] = null;
  const pendingGas: Dev['GatewayInvokeResult']['gasUsed'] = null;

  const history = must(
    await api.GET('/api/devportal/developers/{id}/wallet-history', {
      headers,
      params: { path: { id: developerId }, query: { limit: 5 } },
    }),
  );
  const analytics = must(
    await api.GET('/api/devportal/developers/{id}/analytics', { headers, params: { path: { id: developerId }, query: { days: 7 } } }),
  );
  const requests: number = analytics.totals.requests;
  const details = must(await api.GET('/api/devportal/developers/{id}', { headers, params: { path: { id: developerId } } }));
  const projects: Dev['Project'][] = details.projects;

  // docs/api.md, "Transactions": the invoke's transaction record, the contract's events, a webhook and its log.
  // Null only in an answer replayed from before transaction records existed.
  const transactionId: string | null | undefined = invoke.transactionId;
  if (!transactionId) throw new Error('the invoke answer names no transaction record');
  const txRecord = must(await api.GET('/api/devportal/transactions/{id}', { headers, params: { path: { id: transactionId } } }));
  const txStatus: string = txRecord.status;
  const events = must(
    await api.GET('/api/devportal/contracts/{id}/events', {
      headers: { 'x-api-key': apiKey },
      params: { path: { id: contractId }, query: { event: 'Transfer', limit: 10 } },
    }),
  );
  const eventName: string | undefined = events.items[0]?.event;
  const eventBlock: number | undefined = events.items[0]?.blockNumber;
  const webhook = must(
    await api.POST('/api/devportal/developers/{id}/webhooks', {
      headers,
      params: { path: { id: developerId } },
      body: { url: 'https://receiver.example/hook', events: ['transaction.status', 'contract.event'], contractId },
    }),
  );
  const webhookSecret: string = webhook.secret;
  const webhooks = must(await api.GET('/api/devportal/developers/{id}/webhooks', { headers, params: { path: { id: developerId } } }));
  const deliveries = must(
    await api.GET('/api/devportal/webhooks/{webhookId}/deliveries', { headers, params: { path: { webhookId: webhook.id } } }),
  );
  const deliveryAttempts: number | undefined = deliveries.items[0]?.attempts;
  const deletedWebhook = must(
    await api.DELETE('/api/devportal/webhooks/{webhookId}', { headers, params: { path: { webhookId: webhook.id } } }),
  );

  const revoked = must(
    await api.DELETE('/api/devportal/api-keys/{keyId}', { headers, params: { path: { keyId: key.id } } }),
  );
  const revokedStatus: string = revoked.status;
  const denied = await api.POST('/api/devportal/contracts/{id}/query/{method}', {
    headers: { 'x-api-key': apiKey },
    params: { path: { id: contractId, method: 'balanceOf' } },
    body: { args: [wallet] },
  });
  const deniedCode: Dev['Error']['error']['code'] | undefined = denied.error?.error.code;

  void [expiresIn, me, noDescription, dripDefault, amountWei, remaining, pendingDrip, balanceWei, address, chainId];
  void [abi, registeredBefore, statusReason, approvedAt, notRegisteredAt, record, mine, lastPage, openapiUrl];
  void [queryTemplate, spec, scopes, keys, neverUsed, notRevoked, result, txHash, pendingBlock, pendingGas];
  void [history, requests, projects, revokedStatus, deniedCode];
  void [txStatus, eventName, eventBlock, webhookSecret, webhooks, deliveryAttempts, deletedWebhook];
  return { contractId, address: address ?? '', apiKey, keyId: key.id, developerId, token };
}

export async function explorerFlow(baseUrl: string, txHash: string, tokenAddress: string): Promise<void> {
  const ex = createClient<ExplorerPaths>({ baseUrl });
  const network = 'testnet' as const;

  const tx = must(await ex.GET('/api/explorer/tx/{hash}', { params: { path: { hash: txHash }, query: { network } } }));
  const found: boolean = tx.found;
  const notFound: Ex['TransactionLookup']['transaction'] = null;
  const transaction = tx.transaction;
  if (!transaction) throw new Error('not found');
  const status: 'success' | 'reverted' | 'pending' = transaction.status;
  const blockNumber: number | null | undefined = transaction.blockNumber;
  const creation: Ex['Transaction']['to'] = null;
  const noContract: Ex['Transaction']['contractAddress'] = null;
  const undecoded: Ex['Transaction']['method'] = null;
  const decodedArgs: unknown[] | undefined = transaction.method?.args.map((a) => a.value);
  const argValue: Ex['MethodArgument']['value'] = ['0xabc', '1', { nested: true }];

  const block = must(
    await ex.GET('/api/explorer/block/{id}', { params: { path: { id: String(blockNumber) }, query: { network } } }),
  );
  const hashes: string[] = block.block?.transactions ?? [];
  const noBlock: Ex['BlockLookup']['block'] = null;

  const address = must(
    await ex.GET('/api/explorer/address/{address}', {
      params: { path: { address: tokenAddress }, query: { network, limit: 10 } },
    }),
  );
  const kind: 'indexed' | 'scan' | 'none' = address.activityKind;
  const isContract: boolean | undefined = address.info?.isContract;
  const noInfo: Ex['AddressLookup']['info'] = null;
  const noPortalContract: Ex['AddressInfo']['contract'] = null;
  const noMethod: Ex['AddressActivity']['method'] = null;

  const search = must(await ex.GET('/api/explorer/search', { params: { query: { q: txHash, network } } }));
  const types: string[] = search.results.map((r) => r.type);

  const status2 = must(await ex.GET('/api/explorer/network-status', { params: { query: { network } } }));
  const validators: string[] = status2.validators;
  const healthy: boolean = status2.rpc.healthy;
  const noLatency: Ex['RpcHealth']['latencyMs'] = null;
  const noIndex: Ex['IndexerProgress']['lastIndexedBlock'] = null;

  const live = must(await ex.GET('/api/explorer/live-blocks', { params: { query: { network, limit: 5 } } }));
  const numbers: number[] = live.blocks.map((b) => b.number);

  void [found, notFound, status, creation, noContract, undecoded, decodedArgs, argValue, hashes, noBlock, kind];
  void [isContract, noInfo, noPortalContract, noMethod, types, validators, healthy, noLatency, noIndex, numbers];
}
`;

/** The contract's own gateway, typed by the `token.ts` generated from its openapi.json. */
export function tokenProgram(contractId: string): string {
  const base = `/api/devportal/contracts/${contractId}`;
  return `
import createClient from 'openapi-fetch';
import type { components, paths } from './token';

type S = components['schemas'];

export async function tokenFlow(baseUrl: string, apiKey: string, holder: string, to: string): Promise<string> {
  const token = createClient<paths>({ baseUrl, headers: { 'x-api-key': apiKey } });

  const before = await token.POST('${base}/query/balanceOf', { body: { args: [holder] } });
  const balance: string | undefined = before.data?.result;
  const symbol = await token.POST('${base}/query/symbol', {});
  const name: string | undefined = symbol.data?.result;
  const decimals = await token.POST('${base}/query/decimals', {});
  const sent = await token.POST('${base}/invoke/transfer', {
    body: { args: [to, '250'], gasLimit: '200000' },
    params: { header: { 'Idempotency-Key': 'e2e-transfer-1' } },
  });
  // A 202 (Prefer: respond-async) names only the record to follow: told apart by its fields.
  const txHash: string | undefined = sent.data && 'txHash' in sent.data ? sent.data.txHash : undefined;
  const status: 'success' | 'reverted' | 'pending' | 'queued' | undefined = sent.data?.status;
  const pending: S['invoke_transfer_response']['blockNumber'] = null;
  const reverted = await token.POST('${base}/invoke/burnExactly', { body: { args: ['1'] } });
  const code: string | undefined = reverted.error?.error.code;

  void [balance, name, decimals, status, pending, code];
  return txHash ?? '';
}
`;
}
