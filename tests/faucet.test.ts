/* eslint-disable @typescript-eslint/no-explicit-any -- responses are asserted field by field */
import { Wallet, parseEther } from 'ethers';
import { Client as PgClient } from 'pg';
import { client, type Client } from './kit/http';
import { login, type LoggedIn } from './kit/login';
import { ANVIL_KEYS, providerOf } from './kit/chain';
import { describeAnyFront, itAnyFront } from './kit/fronts';
import { startStack, type Stack, sqlRows } from './kit/stack';

let stack: Stack;
let api: Client;

beforeAll(async () => {
  stack = await startStack();
  api = client(stack.url);
});
afterAll(async () => {
  await stack?.stop();
});

const count = async (text: string, params: unknown[]) =>
  Number((await sqlRows<{ n: string }>(stack, text, params))[0]!.n);

describeAnyFront('wallet balance', () => {
  it('reads the balance of any address on either network, testnet by default', async () => {
    const funded = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
    const res = await api.get(`/api/devportal/wallets/${funded.toLowerCase()}/balance`);
    expect(res.status).toBe(200);
    const onChain = await providerOf(stack, 'testnet').getBalance(funded);
    expect(res.body).toEqual({
      address: funded,
      network: 'testnet',
      chainId: 17991,
      balanceWei: onChain.toString(),
      balance: expect.stringMatching(/^\d+\.\d+$/),
    });
    const main = await api.get(`/api/devportal/wallets/${funded}/balance?network=mainnet`);
    expect(main.body).toMatchObject({ network: 'mainnet', chainId: 1991 });
    const empty = await api.get(`/api/devportal/wallets/${Wallet.createRandom().address}/balance`);
    expect(empty.body).toMatchObject({ balanceWei: '0', balance: '0.0' });
  });

  it('refuses malformed addresses and networks with 400', async () => {
    for (const bad of ['0x123', 'not-an-address', `0x${'g'.repeat(40)}`, `${'a'.repeat(42)}`]) {
      const res = await api.get(`/api/devportal/wallets/${bad}/balance`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
    }
    const net = await api.get(
      `/api/devportal/wallets/0x70997970C51812dc3A010C7d01b50e0d17dc79C8/balance?network=devnet`,
    );
    expect(net.status).toBe(400);
    expect(net.body.error.code).toBe('INVALID_NETWORK');
  });
});

describe('faucet', () => {
  let dev: LoggedIn;
  beforeAll(async () => {
    dev = await login(api, stack.ca);
  });

  it('drips exactly 10 coins into the caller’s wallet and shows it in the history', async () => {
    const provider = providerOf(stack, 'testnet');
    const before = await provider.getBalance(dev.walletAddress);
    const res = await api.post('/api/devportal/faucet/drip', {}, { token: dev.token });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      network: 'testnet',
      to: dev.walletAddress,
      amountWei: '10000000000000000000',
      amount: '10',
      dripsUsedToday: 1,
      dripsRemainingToday: 4,
    });
    expect(res.body.blockNumber).toEqual(expect.any(Number));
    const midnight = new Date();
    midnight.setUTCHours(24, 0, 0, 0);
    expect(res.body.resetsAt).toBe(midnight.toISOString());
    expect((await provider.getBalance(dev.walletAddress)) - before).toBe(parseEther('10'));
    const receipt = await provider.getTransactionReceipt(res.body.txHash);
    expect(receipt?.status).toBe(1);

    const history = await api.get(`/api/devportal/developers/${dev.developerId}/wallet-history`, { token: dev.token });
    expect(history.status).toBe(200);
    expect(history.body).toMatchObject({ address: dev.walletAddress, network: 'testnet', nextCursor: null });
    expect(history.body.items[0]).toMatchObject({
      txHash: res.body.txHash,
      kind: 'faucet',
      to: dev.walletAddress,
      valueWei: '10000000000000000000',
      status: 'success',
      blockNumber: res.body.blockNumber,
    });
    expect(history.body.items[0].timestamp).toEqual(expect.any(Number));
  });

  it('allows exactly 5 drips a day even when 20 arrive at once', async () => {
    const other = await login(api, stack.ca);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => api.post('/api/devportal/faucet/drip', {}, { token: other.token })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
    const refused = results.find((r) => r.status === 429)!;
    expect(refused.body.error.code).toBe('FAUCET_LIMIT');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86400);
    expect(await providerOf(stack, 'testnet').getBalance(other.walletAddress)).toBe(parseEther('50'));
    expect(await count('SELECT count(*) AS n FROM faucet_drips WHERE developer_id = $1', [other.developerId])).toBe(5);
    // Each mined drip keeps its index in the block from its receipt, so the history's order (and
    // a cursor into it) does not move when the explorer index catches up with the block.
    expect(
      await count(
        `SELECT count(*) AS n FROM chain_transactions WHERE to_address = $1 AND kind = 'faucet' AND tx_index IS NOT NULL`,
        [other.walletAddress],
      ),
    ).toBe(5);

    const page1 = await api.get(`/api/devportal/developers/${other.developerId}/wallet-history?limit=2`, {
      token: other.token,
    });
    expect(page1.body.items).toHaveLength(2);
    const page2 = await api.get(
      `/api/devportal/developers/${other.developerId}/wallet-history?limit=2&cursor=${page1.body.nextCursor}`,
      { token: other.token },
    );
    const page3 = await api.get(
      `/api/devportal/developers/${other.developerId}/wallet-history?limit=2&cursor=${page2.body.nextCursor}`,
      { token: other.token },
    );
    expect(page3.body.nextCursor).toBeNull();
    const hashes = [...page1.body.items, ...page2.body.items, ...page3.body.items].map(
      (i: { txHash: string }) => i.txHash,
    );
    expect(new Set(hashes).size).toBe(5);

    // Newest first by (block number, transaction index), as the chain ordered them, even within one block.
    const indexed = async () =>
      sqlRows<{ hash: string }>(
        stack,
        `SELECT hash FROM explorer_transactions WHERE network = 'testnet' AND hash = ANY($1)
          ORDER BY block_number DESC, transaction_index DESC`,
        [hashes],
      );
    const until = Date.now() + 20_000;
    while ((await indexed()).length < 5 && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
    const chainOrder = (await indexed()).map((r) => r.hash);
    const all = await api.get(`/api/devportal/developers/${other.developerId}/wallet-history?limit=10`, {
      token: other.token,
    });
    expect(all.body.items.map((i: { txHash: string }) => i.txHash)).toEqual(chainOrder);
  });

  it('pays any address named in `to`, counted against the caller’s day', async () => {
    const payer = await login(api, stack.ca);
    const provider = providerOf(stack, 'testnet');
    const recipient = Wallet.createRandom().address;
    const res = await api.post('/api/devportal/faucet/drip', { to: recipient.toLowerCase() }, { token: payer.token });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ to: recipient, amountWei: '10000000000000000000', dripsUsedToday: 1 });
    expect(await provider.getBalance(recipient)).toBe(parseEther('10'));
    expect(await provider.getBalance(payer.walletAddress)).toBe(0n);

    // The caller's own wallet next: the day's count goes on.
    const own = await api.post('/api/devportal/faucet/drip', {}, { token: payer.token });
    expect(own.body).toMatchObject({ to: payer.walletAddress, dripsUsedToday: 2, dripsRemainingToday: 3 });

    const bad = await api.post('/api/devportal/faucet/drip', { to: '0x1234' }, { token: payer.token });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(bad.body.error.message).toContain('to');
    expect(await count('SELECT count(*) AS n FROM faucet_drips WHERE developer_id = $1', [payer.developerId])).toBe(2);

    const graphql = await api.post(
      '/graphql',
      { query: `mutation($to: String) { faucetDrip(to: $to) { to dripsUsedToday } }`, variables: { to: recipient } },
      { token: payer.token },
    );
    expect(graphql.body.data.faucetDrip).toEqual({ to: recipient, dripsUsedToday: 3 });
  });

  itAnyFront('is testnet only and needs a developer token', async () => {
    const main = await api.post('/api/devportal/faucet/drip', { network: 'mainnet' }, { token: dev.token });
    expect(main.status).toBe(400);
    expect(main.body.error.code).toBe('FAUCET_TESTNET_ONLY');
    const anonymous = await api.post('/api/devportal/faucet/drip', {});
    expect(anonymous.status).toBe(401);
    const bad = await api.post('/api/devportal/faucet/drip', { network: 'moon' }, { token: dev.token });
    expect(bad.body.error.code).toBe('INVALID_NETWORK');
  });

  itAnyFront('shows transfers in and out that the service did not send, from the explorer index', async () => {
    const me = await login(api, stack.ca);
    const sender = new Wallet(ANVIL_KEYS[2]!, providerOf(stack, 'testnet'));
    const tx = await sender.sendTransaction({ to: me.walletAddress, value: parseEther('1.5') });
    await tx.wait();
    let item: any;
    for (let i = 0; i < 50 && !item; i++) {
      const history = await api.get(`/api/devportal/developers/${me.developerId}/wallet-history`, { token: me.token });
      item = history.body.items.find((x: { txHash: string }) => x.txHash === tx.hash);
      if (!item) await new Promise((r) => setTimeout(r, 200));
    }
    expect(item).toMatchObject({
      kind: 'transfer-in',
      from: sender.address,
      to: me.walletAddress,
      valueWei: parseEther('1.5').toString(),
      status: 'success',
      blockNumber: expect.any(Number),
      timestamp: expect.any(Number),
    });
    // Not the service's own transaction: no contract or method, left out (docs/api.md, "Wallet and faucet" `contractId?`, `method?`).
    expect(item).not.toHaveProperty('contractId');
    expect(item).not.toHaveProperty('method');
  });

  itAnyFront('guards the wallet history: own id only, valid cursors and limits', async () => {
    const other = await login(api, stack.ca);
    const path = (id: string, q = '') => `/api/devportal/developers/${id}/wallet-history${q}`;
    expect((await api.get(path(other.developerId), { token: dev.token })).status).toBe(403);
    expect((await api.get(path(dev.developerId))).status).toBe(401);
    for (const q of ['?cursor=garbage', '?limit=0', '?limit=101', '?limit=abc', '?network=x']) {
      const res = await api.get(path(dev.developerId, q), { token: dev.token });
      expect(res.status).toBe(400);
    }
  });
});

describe('a faucet that cannot pay', () => {
  let dry: Stack;
  beforeAll(async () => {
    dry = await startStack({ FAUCET_PRIVATE_KEY: Wallet.createRandom().privateKey });
  });
  afterAll(async () => {
    await dry?.stop();
  });

  it('answers 503 FAUCET_EMPTY and does not count the drip', async () => {
    const dryApi = client(dry.url);
    const dev = await login(dryApi, dry.ca);
    const res = await dryApi.post('/api/devportal/faucet/drip', {}, { token: dev.token });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('FAUCET_EMPTY');
    const pg = new PgClient({ connectionString: dry.databaseUrl });
    await pg.connect();
    const { rows } = await pg.query('SELECT count(*) AS n FROM faucet_drips');
    await pg.end();
    expect(Number(rows[0].n)).toBe(0);
  });
});
