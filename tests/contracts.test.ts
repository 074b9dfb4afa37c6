import { Interface, Wallet } from 'ethers';
import { findOpcode } from '../src/modules/contracts/compiler/compiler';
import { fund, providerOf } from './kit/chain';
import { client, type Client } from './kit/http';
import { issueDeveloperCertificate, login, type LoggedIn } from './kit/login';
import { COUNTER_SOURCE, PICKY_SOURCE, TOKEN_SOURCE } from './kit/solidity';
import { describeAnyFront, itAnyFront } from './kit/fronts';
import { startStack, type Stack, sqlRows } from './kit/stack';

const ADMIN_SERIAL = 'IINADMIN000001';
let stack: Stack;
let api: Client;
let dev: LoggedIn;

beforeAll(async () => {
  stack = await startStack({ ADMIN_SUBJECTS: `${ADMIN_SERIAL},someone-else` });
  api = client(stack.url);
  dev = await login(api, stack.ca);
  expect((await api.post('/api/devportal/faucet/drip', {}, { token: dev.token })).status).toBe(201);
});
afterAll(async () => {
  await stack?.stop();
});

const rows = <T>(text: string, params: unknown[] = []) => sqlRows<T>(stack, text, params);

const deploy = (body: Record<string, unknown>, token = dev.token) =>
  api.post('/api/devportal/contracts/deploy', body, { token });

describeAnyFront('compile', () => {
  it('compiles an OpenZeppelin ERC-20 with solc 0.8.20 for paris, without PUSH0', async () => {
    const res = await api.post('/api/devportal/contracts/compile', { source: TOKEN_SOURCE });
    expect(res.status).toBe(201);
    expect(res.body.compiler).toEqual({
      version: expect.stringMatching(/^0\.8\.20/),
      evmVersion: 'paris',
      optimizer: { enabled: true, runs: 200 },
    });
    expect(res.body.contracts).toHaveLength(1);
    const token = res.body.contracts[0];
    expect(token).toMatchObject({ name: 'Token', sourceFile: 'Contract.sol' });
    expect(token.abi.map((f: { name?: string }) => f.name)).toEqual(
      expect.arrayContaining(['transfer', 'mint', 'owner']),
    );
    expect(findOpcode(token.bytecode, 0x5f)).toBe(-1);
    expect(findOpcode(token.deployedBytecode, 0x5f)).toBe(-1);
  });

  it('accepts sources up to the 1 MiB body limit, and no more', async () => {
    // 600 KiB of comment around a small contract: within the documented body limit.
    const padding = `// ${'x'.repeat(99)}\n`.repeat(6 * 1024);
    // As a developer: an anonymous compile has 5 s, which solc may need for 600 KiB on a loaded machine.
    const big = await api.post(
      '/api/devportal/contracts/compile',
      {
        source: `// SPDX-License-Identifier: MIT\npragma solidity ^0.8.20;\n${padding}contract Big { uint256 public n; }`,
      },
      { token: dev.token },
    );
    expect(big.body.error).toBeUndefined();
    expect(big.status).toBe(201);
    expect(big.body.contracts[0].name).toBe('Big');
    const tooBig = await api.post('/api/devportal/contracts/compile', { source: padding.repeat(2) });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('reports syntax errors with their location, and refuses newer pragmas', async () => {
    const syntax = await api.post('/api/devportal/contracts/compile', {
      sources: { 'Broken.sol': 'pragma solidity ^0.8.20;\ncontract Broken { function f( }' },
    });
    expect(syntax.status).toBe(422);
    expect(syntax.body.error.code).toBe('COMPILATION_FAILED');
    expect(syntax.body.error.details.errors[0]).toMatchObject({
      severity: 'error',
      sourceLocation: { file: 'Broken.sol', start: expect.any(Number), end: expect.any(Number) },
    });
    const newer = await api.post('/api/devportal/contracts/compile', {
      source: 'pragma solidity ^0.8.24;\ncontract A {}',
    });
    expect(newer.status).toBe(422);
    expect(newer.body.error.code).toBe('COMPILATION_FAILED');
  });

  it('refuses imports from outside the approved library', async () => {
    for (const path of [
      'https://example.com/x.sol',
      '@uniswap/v2-core/contracts/UniswapV2Pair.sol',
      '/etc/passwd',
      '../secret.sol',
    ]) {
      const res = await api.post('/api/devportal/contracts/compile', {
        source: `pragma solidity ^0.8.20;\nimport "${path}";\ncontract A {}`,
      });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('IMPORT_NOT_ALLOWED');
      expect(res.body.error.message).toContain(path);
    }
  });

  it('answers 400 for a body with neither or both of source and sources', async () => {
    for (const body of [{}, { source: 'x', sources: { 'A.sol': 'x' } }, { sources: { 'A.sol': 5 } }, { source: 42 }]) {
      const res = await api.post('/api/devportal/contracts/compile', body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
    }
  });
});

describe('deploy on testnet', () => {
  it('deploys at once from the custodial wallet, with constructor arguments', async () => {
    const res = await deploy({
      network: 'testnet',
      source: TOKEN_SOURCE,
      constructorArgs: ['1000000000000000000000'],
      name: 'My Token',
    });
    expect(res.status).toBe(201);
    const c = res.body;
    expect(c).toMatchObject({
      name: 'My Token',
      network: 'testnet',
      chainId: 17991,
      status: 'deployed',
      ownerId: dev.developerId,
      middleware: { registered: false, registeredAt: null },
      compiler: { evmVersion: 'paris' },
    });
    expect(c.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(c.blockNumber).toEqual(expect.any(Number));
    expect(c.deployedAt).toEqual(expect.any(String));
    const provider = providerOf(stack, 'testnet');
    const code = await provider.getCode(c.address);
    expect(code.length).toBeGreaterThan(2);
    const iface = new Interface(c.abi);
    const [balance] = iface.decodeFunctionResult(
      'balanceOf',
      await provider.call({ to: c.address, data: iface.encodeFunctionData('balanceOf', [dev.walletAddress]) }),
    );
    expect(balance).toBe(10n ** 21n);
    const tx = await provider.getTransaction(c.deployTxHash);
    expect(tx?.from).toBe(dev.walletAddress);

    const publicView = await api.get(`/api/devportal/contracts/${c.id}`);
    expect(publicView.status).toBe(200);
    expect(publicView.body).toEqual(c);
    expect(JSON.stringify(publicView.body)).not.toMatch(/privateKey|encrypted/i);

    const history = await api.get(`/api/devportal/developers/${dev.developerId}/wallet-history`, { token: dev.token });
    expect(history.body.items[0]).toMatchObject({
      kind: 'deploy',
      txHash: c.deployTxHash,
      contractId: c.id,
      status: 'success',
      to: null,
    });
  });

  it('decodes a constructor revert (reason string and custom error) and keeps no deployed record', async () => {
    const before = await rows<{ n: string }>('SELECT count(*) AS n FROM contracts');
    const reason = await deploy({ source: PICKY_SOURCE, constructorArgs: [50, ''] });
    expect(reason.status).toBe(422);
    expect(reason.body.error.code).toBe('EXECUTION_REVERTED');
    expect(reason.body.error.details.reason).toBe('label must not be empty');
    const custom = await deploy({ source: PICKY_SOURCE, constructorArgs: [3, 'ok'] });
    expect(custom.status).toBe(422);
    expect(custom.body.error.details.error).toEqual({
      name: 'TooSmall',
      signature: 'TooSmall(uint256,uint256)',
      args: ['3', '11'],
    });
    const after = await rows<{ n: string }>('SELECT count(*) AS n FROM contracts');
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  itAnyFront('refuses bad constructor arguments with 400 INVALID_ARGUMENT', async () => {
    const res = await deploy({ source: PICKY_SOURCE, constructorArgs: ['not a number', 'x'] });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_ARGUMENT');
    expect(res.body.error.details).toMatchObject({ index: 0, name: 'x', type: 'uint256' });
    const count = await deploy({ source: PICKY_SOURCE, constructorArgs: [50] });
    expect(count.body.error.code).toBe('INVALID_ARGUMENT');
  });

  it('says how much is needed when the wallet cannot pay', async () => {
    const poor = await login(api, stack.ca);
    const res = await deploy({ source: COUNTER_SOURCE }, poor.token);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('INSUFFICIENT_FUNDS');
    const mine = await api.get(`/api/devportal/developers/${poor.developerId}/contracts`, { token: poor.token });
    expect(mine.body.items).toEqual([]);
  });

  it('needs contractName when the sources define several contracts', async () => {
    const sources = {
      'A.sol': COUNTER_SOURCE,
      'B.sol': 'pragma solidity ^0.8.20;\ncontract Other { function x() external pure returns (uint) { return 1; } }',
    };
    const res = await deploy({ sources });
    expect(res.status).toBe(400);
    expect(res.body.error.details.contracts.sort()).toEqual(['Counter', 'Other']);
    const chosen = await deploy({ sources, contractName: 'Other' });
    expect(chosen.status).toBe(201);
    expect(chosen.body).toMatchObject({ name: 'Other', status: 'deployed' });
  });

  it('lands 10 concurrent deployments from one wallet with distinct nonces', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => deploy({ source: COUNTER_SOURCE })));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(201));
    expect(results.every((r) => r.body.status === 'deployed')).toBe(true);
    const provider = providerOf(stack, 'testnet');
    const nonces = await Promise.all(
      results.map(async (r) => (await provider.getTransaction(r.body.deployTxHash))!.nonce),
    );
    expect(new Set(nonces).size).toBe(10);
    const addresses = new Set(results.map((r) => r.body.address));
    expect(addresses.size).toBe(10);
  });

  itAnyFront('pages through contracts created within one millisecond without skipping or repeating any', async () => {
    const owner = await login(api, stack.ca);
    // A mainnet deploy waits for approval: a contract row without funds or a chain.
    const first = await deploy({ source: COUNTER_SOURCE, network: 'mainnet' }, owner.token);
    expect(first.status).toBe(201);
    // Nine more rows in one millisecond of 2026: microseconds apart, and three exact ties.
    await rows(
      `INSERT INTO contracts
       SELECT (jsonb_populate_record(c, jsonb_build_object(
                 'id', gen_random_uuid(),
                 'created_at', '2026-01-01T00:00:00.123' || lpad(least(n, 7)::text, 3, '0') || 'Z'))).*
         FROM contracts c, generate_series(1, 9) n WHERE c.id = $1`,
      [first.body.id],
    );
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `&cursor=${cursor}` : '';
      const page = await api.get(`/api/devportal/developers/${owner.developerId}/contracts?limit=2${query}`, {
        token: owner.token,
      });
      expect(page.status).toBe(200);
      seen.push(...page.body.items.map((c: { id: string }) => c.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(10);
    expect(new Set(seen).size).toBe(10);
    expect(seen[0]).toBe(first.body.id);
  });

  itAnyFront('lists the developer’s contracts with filters and pages', async () => {
    const project = await api.post('/api/devportal/projects', { name: 'Filed' }, { token: dev.token });
    const filed = await deploy({ source: COUNTER_SOURCE, projectId: project.body.id });
    expect(filed.body.projectId).toBe(project.body.id);
    const byProject = await api.get(
      `/api/devportal/developers/${dev.developerId}/contracts?projectId=${project.body.id}`,
      { token: dev.token },
    );
    expect(byProject.body.items.map((c: { id: string }) => c.id)).toEqual([filed.body.id]);
    const page = await api.get(
      `/api/devportal/developers/${dev.developerId}/contracts?limit=3&status=deployed&network=testnet`,
      { token: dev.token },
    );
    expect(page.body.items).toHaveLength(3);
    expect(page.body.nextCursor).toEqual(expect.any(String));
    const next = await api.get(
      `/api/devportal/developers/${dev.developerId}/contracts?limit=3&cursor=${page.body.nextCursor}`,
      { token: dev.token },
    );
    expect(next.body.items[0].id).not.toBe(page.body.items[2].id);
    const other = await login(api, stack.ca);
    expect(
      (await api.get(`/api/devportal/developers/${dev.developerId}/contracts`, { token: other.token })).status,
    ).toBe(403);
    expect(
      (await api.get(`/api/devportal/developers/${dev.developerId}/contracts?status=weird`, { token: dev.token }))
        .status,
    ).toBe(400);
    const foreignProject = await deploy({ source: COUNTER_SOURCE, projectId: project.body.id }, other.token);
    expect(foreignProject.status).toBe(404);
  });

  itAnyFront('answers 404 for unknown or malformed contract ids', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'nope', "1'; DROP TABLE contracts;--"]) {
      const res = await api.get(`/api/devportal/contracts/${encodeURIComponent(id)}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
  });
});

describe('mainnet approval', () => {
  let admin: LoggedIn;
  beforeAll(async () => {
    admin = await login(api, stack.ca, await issueDeveloperCertificate(stack.ca, { serialNumber: ADMIN_SERIAL }));
  });

  it('keeps a mainnet deployment compiled until an administrator approves it', async () => {
    const res = await deploy({ network: 'mainnet', source: COUNTER_SOURCE });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: 'compiled',
      network: 'mainnet',
      chainId: 1991,
      address: null,
      deployTxHash: null,
    });
    expect(await providerOf(stack, 'mainnet').getTransactionCount(dev.walletAddress)).toBe(0);

    const queue = await api.get('/api/devportal/admin/contracts?status=compiled', { token: admin.token });
    expect(queue.status).toBe(200);
    expect(queue.body.items.map((c: { id: string }) => c.id)).toContain(res.body.id);

    const byDeveloper = await api.post(
      `/api/devportal/admin/contracts/${res.body.id}/approve`,
      {},
      { token: dev.token },
    );
    expect(byDeveloper.status).toBe(403);
    expect(byDeveloper.body.error.code).toBe('FORBIDDEN');
    expect((await api.get('/api/devportal/admin/contracts', { token: dev.token })).status).toBe(403);

    const unfunded = await api.post(
      `/api/devportal/admin/contracts/${res.body.id}/approve`,
      {},
      { token: admin.token },
    );
    expect(unfunded.status).toBe(422);
    expect(unfunded.body.error.code).toBe('INSUFFICIENT_FUNDS');
    expect((await api.get(`/api/devportal/contracts/${res.body.id}`)).body).toMatchObject({
      status: 'compiled',
      approvedAt: null,
    });

    await fund(stack, 'mainnet', dev.walletAddress, '5');
    const approved = await api.post(
      `/api/devportal/admin/contracts/${res.body.id}/approve`,
      {},
      { token: admin.token },
    );
    expect(approved.status).toBe(201);
    expect(approved.body).toMatchObject({ status: 'deployed', network: 'mainnet' });
    expect(approved.body.approvedAt).toEqual(expect.any(String));
    expect((await providerOf(stack, 'mainnet').getCode(approved.body.address)).length).toBeGreaterThan(2);
    // The approval's deployment is a transaction record of the owner's, readable with their token.
    const [record] = await rows<{ id: string }>(
      `SELECT id FROM transaction_records WHERE contract_id = $1 AND kind = 'deploy'`,
      [res.body.id],
    );
    const tx = await api.get(`/api/devportal/transactions/${record!.id}`, { token: dev.token });
    expect(tx.body).toMatchObject({
      kind: 'deploy',
      network: 'mainnet',
      status: 'success',
      txHash: approved.body.deployTxHash,
      blockNumber: approved.body.blockNumber,
    });

    const again = await api.post(`/api/devportal/admin/contracts/${res.body.id}/approve`, {}, { token: admin.token });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'INVALID_STATE', details: { status: 'deployed' } });
  });

  it('rejects with a reason, once', async () => {
    const res = await deploy({ network: 'mainnet', source: COUNTER_SOURCE });
    const rejected = await api.post(
      `/api/devportal/admin/contracts/${res.body.id}/reject`,
      { reason: 'Needs an audit' },
      { token: admin.token },
    );
    expect(rejected.status).toBe(201);
    expect(rejected.body).toMatchObject({ status: 'rejected', statusReason: 'Needs an audit' });
    const twice = await api.post(`/api/devportal/admin/contracts/${res.body.id}/reject`, {}, { token: admin.token });
    expect(twice.status).toBe(409);
    const approve = await api.post(`/api/devportal/admin/contracts/${res.body.id}/approve`, {}, { token: admin.token });
    expect(approve.status).toBe(409);
    expect((await api.post(`/api/devportal/admin/contracts/nope/approve`, {}, { token: admin.token })).status).toBe(
      404,
    );
  });
});

describeAnyFront('gateway registration and specifications', () => {
  it('registers deployed contracts only, for their owner, idempotently', async () => {
    const compiled = await deploy({ network: 'mainnet', source: COUNTER_SOURCE });
    const notDeployed = await api.post(
      `/api/devportal/contracts/${compiled.body.id}/register-middleware`,
      {},
      { token: dev.token },
    );
    expect(notDeployed.status).toBe(409);
    expect(notDeployed.body.error.code).toBe('CONTRACT_NOT_DEPLOYED');

    const c = (await deploy({ source: COUNTER_SOURCE })).body;
    const swaggerBefore = await api.get(`/api/devportal/contracts/${c.id}/swagger`);
    expect(swaggerBefore.status).toBe(409);
    expect(swaggerBefore.body.error.code).toBe('CONTRACT_NOT_REGISTERED');

    const other = await login(api, stack.ca);
    const foreign = await api.post(`/api/devportal/contracts/${c.id}/register-middleware`, {}, { token: other.token });
    expect(foreign.status).toBe(403);
    expect((await api.post(`/api/devportal/contracts/${c.id}/register-middleware`, {})).status).toBe(401);

    const first = await api.post(`/api/devportal/contracts/${c.id}/register-middleware`, {}, { token: dev.token });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      contractId: c.id,
      registered: true,
      endpoints: {
        query: `${stack.app.config.publicBaseUrl}/api/devportal/contracts/${c.id}/query/{method}`,
        invoke: `${stack.app.config.publicBaseUrl}/api/devportal/contracts/${c.id}/invoke/{method}`,
      },
      swaggerUrl: `${stack.app.config.publicBaseUrl}/api/devportal/contracts/${c.id}/swagger`,
      openapiUrl: `${stack.app.config.publicBaseUrl}/api/devportal/contracts/${c.id}/openapi.json`,
    });
    const second = await api.post(`/api/devportal/contracts/${c.id}/register-middleware`, {}, { token: dev.token });
    expect(second.body).toEqual(first.body);
    expect((await api.get(`/api/devportal/contracts/${c.id}`)).body.middleware).toEqual({
      registered: true,
      registeredAt: first.body.registeredAt,
    });

    const swagger = await api.get(`/api/devportal/contracts/${c.id}/swagger`);
    expect(swagger.status).toBe(200);
    expect(swagger.body.swagger).toBe('2.0');
    expect(swagger.body.securityDefinitions.ApiKeyAuth).toEqual({ type: 'apiKey', in: 'header', name: 'x-api-key' });

    const openapi = await api.get(`/api/devportal/contracts/${c.id}/openapi.json`);
    expect(openapi.status).toBe(200);
    expect(openapi.body.openapi).toBe('3.0.3');
    const paths = Object.keys(openapi.body.paths);
    expect(paths).toEqual(
      expect.arrayContaining([
        `/api/devportal/contracts/${c.id}/query/count`,
        `/api/devportal/contracts/${c.id}/invoke/increment`,
      ]),
    );
    expect(openapi.body.components.securitySchemes.ApiKeyAuth).toEqual({
      type: 'apiKey',
      in: 'header',
      name: 'x-api-key',
    });
  });
});

describe('GraphQL', () => {
  it('compiles and deploys through the same schema', async () => {
    const res = await api.graphql(
      `mutation($input: DeployContractInput!) { deployContract(input: $input) { id status address network middleware { registered } } }`,
      { input: { source: COUNTER_SOURCE } },
      { token: dev.token },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.deployContract).toMatchObject({
      status: 'deployed',
      network: 'testnet',
      middleware: { registered: false },
    });
    const bad = await api.graphql(
      `mutation { compileContract(input: { source: "contract {" }) { warnings { message } } }`,
    );
    expect(bad.body.errors[0].extensions.code).toBe('COMPILATION_FAILED');
    expect(bad.body.errors[0].extensions.details.errors.length).toBeGreaterThan(0);
    expect(Wallet.createRandom().address).toBeTruthy();
  });
});

describe('deploy with Prefer: respond-async (docs/api.md, Contracts)', () => {
  const ASYNC = { prefer: 'respond-async' };
  const deployAsync = (body: Record<string, unknown>, token = dev.token) =>
    api.post('/api/devportal/contracts/deploy', body, { token, headers: ASYNC });

  /** Polls a contract until it leaves `deploying`. */
  async function landed(id: string) {
    const until = Date.now() + 60_000;
    for (;;) {
      const res = await api.get(`/api/devportal/contracts/${id}`);
      expect(res.status).toBe(200);
      if (res.body.status !== 'deploying') return res.body;
      if (Date.now() > until) throw new Error(`contract ${id} still deploying`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** Polls the deployment's transaction record until it leaves queued and pending. */
  async function settled(id: string) {
    const until = Date.now() + 90_000;
    for (;;) {
      const res = await api.get(`/api/devportal/transactions/${id}`, { token: dev.token });
      expect(res.status).toBe(200);
      if (!['queued', 'pending'].includes(res.body.status)) return res.body;
      if (Date.now() > until) throw new Error(`transaction ${id} still ${res.body.status}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  it('answers 202 {transactionId, status: queued}; the record ends success and the contract becomes deployed', async () => {
    const res = await deployAsync({ source: TOKEN_SOURCE, constructorArgs: ['5000'], name: 'Async Token' });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ transactionId: expect.any(String), status: 'queued' });
    const record = await settled(res.body.transactionId);
    expect(record).toMatchObject({
      kind: 'deploy',
      network: 'testnet',
      status: 'success',
      contractId: expect.any(String),
      txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    // The contract's status follows its record once mined (settled by the same code as a synchronous deploy).
    const contract = await landed(record.contractId);
    expect(contract).toMatchObject({
      name: 'Async Token',
      status: 'deployed',
      ownerId: dev.developerId,
      deployTxHash: record.txHash,
      blockNumber: record.blockNumber,
    });
    const provider = providerOf(stack, 'testnet');
    const iface = new Interface(contract.abi);
    const [balance] = iface.decodeFunctionResult(
      'balanceOf',
      await provider.call({
        to: contract.address,
        data: iface.encodeFunctionData('balanceOf', [dev.walletAddress]),
      }),
    );
    expect(balance).toBe(5000n);
  });

  it('still refuses at once what a synchronous deploy refuses (compile, revert, arguments, funds), storing nothing', async () => {
    const before = await rows<{ n: string }>('SELECT count(*) AS n FROM contracts');
    const records = await rows<{ n: string }>(`SELECT count(*) AS n FROM transaction_records WHERE kind = 'deploy'`);
    const broken = await deployAsync({ source: 'contract X {' });
    expect([broken.status, broken.body.error.code]).toEqual([422, 'COMPILATION_FAILED']);
    const reverted = await deployAsync({ source: PICKY_SOURCE, constructorArgs: [50, ''] });
    expect([reverted.status, reverted.body.error.code]).toEqual([422, 'EXECUTION_REVERTED']);
    const badArgs = await deployAsync({ source: PICKY_SOURCE, constructorArgs: ['not a number', 'x'] });
    expect([badArgs.status, badArgs.body.error.code]).toEqual([400, 'INVALID_ARGUMENT']);
    const poor = await login(api, stack.ca);
    const unfunded = await deployAsync({ source: COUNTER_SOURCE }, poor.token);
    expect([unfunded.status, unfunded.body.error.code]).toEqual([422, 'INSUFFICIENT_FUNDS']);
    expect(await rows('SELECT count(*) AS n FROM contracts')).toEqual(before);
    expect(await rows(`SELECT count(*) AS n FROM transaction_records WHERE kind = 'deploy'`)).toEqual(records);
  });

  it('answers a mainnet deployment 201 compiled as ever: nothing is sent before approval', async () => {
    const res = await deployAsync({ source: COUNTER_SOURCE, network: 'mainnet' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'compiled', network: 'mainnet', address: null, deployTxHash: null });
  });

  it('answers GraphQL with the contract still deploying, which then becomes deployed', async () => {
    const res = await api.graphql(
      `mutation($input: DeployContractInput!) { deployContract(input: $input) { id status address deployTxHash } }`,
      { input: { source: COUNTER_SOURCE } },
      { token: dev.token, headers: ASYNC },
    );
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    const answered = res.body.data.deployContract;
    expect(answered).toMatchObject({ status: 'deploying', address: null });
    expect(await landed(answered.id)).toMatchObject({
      status: 'deployed',
      address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
    });
  });
});
