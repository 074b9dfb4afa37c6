/* eslint-disable @typescript-eslint/no-explicit-any -- responses are asserted field by field */
import { Transaction, Wallet } from 'ethers';
import { BESU_ERRORS } from './kit/besu-node';
import { providerOf } from './kit/chain';
import { client, type Client } from './kit/http';
import { deployRegistered, newKey } from './kit/flows';
import { login, type LoggedIn } from './kit/login';
import { spawnSibling, type ServiceProcess } from './kit/process';
import { ONCE_SOURCE } from './kit/solidity';
import { startStack, sqlRows, trackerPass, type Stack } from './kit/stack';

/** The money paths against the Besu-faithful front (tests/kit/besu-node.ts): JWT, minimum gas price, refusals. */
const MIN_GAS_PRICE = 2_000_000_000n;

let stack: Stack;
/** The service's error log lines (JSON), shown when an answer is not one a test expects. */
const errorLines: string[] = [];
let api: Client;
let dev: LoggedIn;
let contract: { id: string; address: string };
let key: string;

const sql = <T>(text: string, params: unknown[] = []) => sqlRows<T>(stack, text, params);
const invoke = (method: string, body: Record<string, unknown> = {}) =>
  api.post(`/api/devportal/contracts/${contract.id}/invoke/${method}`, body, { apiKey: key });
const front = () => stack.besu!.testnet.front;

beforeAll(async () => {
  stack = await startStack({ LOG_LEVEL: 'error' }, { minGasPrice: MIN_GAS_PRICE }, errorLines);
  api = client(stack.url);
  dev = await login(api, stack.ca);
  expect((await api.post('/api/devportal/faucet/drip', {}, { token: dev.token })).status).toBe(201);
  contract = await deployRegistered(api, dev, ONCE_SOURCE);
  key = (await newKey(api, dev)).apiKey;
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

async function rowsOf(hash: string) {
  return sql<{ status: string; nonce: string }>(`SELECT status, nonce FROM chain_transactions WHERE tx_hash = $1`, [
    hash,
  ]);
}

describe('against a Besu QBFT node', () => {
  it('sends its JWT with every request, and every transaction meets the minimum gas price', async () => {
    expect(front().unauthorized).toBe(0);
    expect(front().calls).toContain('eth_sendRawTransaction');
    const res = await invoke('bump');
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('success');
    const tx = await providerOf(stack, 'testnet').getTransaction(res.body.txHash);
    expect(tx!.maxFeePerGas! >= MIN_GAS_PRICE).toBe(true);
    expect(tx!.maxPriorityFeePerGas! >= MIN_GAS_PRICE).toBe(true);
  });

  it('refuses a gasLimit below the estimate with 400 naming both numbers, sends nothing, and the wallet goes on', async () => {
    const [before] = await sql<{ n: string }>(`SELECT count(*) AS n FROM chain_transactions WHERE from_address = $1`, [
      dev.walletAddress,
    ]);
    const res = await invoke('bump', { gasLimit: '21000' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_ARGUMENT');
    expect(res.body.error.details).toMatchObject({ field: 'gasLimit', gasLimit: '21000' });
    expect(Number(res.body.error.details.requiredGas)).toBeGreaterThan(21000);
    expect(res.body.error.message).toContain('21000');
    expect(res.body.error.message).toContain(res.body.error.details.requiredGas);
    const [after] = await sql<{ n: string }>(`SELECT count(*) AS n FROM chain_transactions WHERE from_address = $1`, [
      dev.walletAddress,
    ]);
    expect(after!.n).toBe(before!.n);
    const below = await invoke('bump', { gasLimit: '20000' });
    expect(below.status).toBe(400);
    expect((await invoke('bump')).body.status).toBe('success');
  });

  it.each([
    ['minimum gas price (-32009)', BESU_ERRORS.gasPriceTooLow],
    ['nonce window (-32000)', BESU_ERRORS.nonceTooDistant],
    ['GoQuorum free gas', { code: -32000, message: 'Gas price not 0' }],
  ])('answers a refusal for the %s at once with 422 TRANSACTION_REFUSED and reuses the nonce', async (_n, error) => {
    front().inject({ kind: 'refuse', ...error });
    const started = Date.now();
    const res = await invoke('bump');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'TRANSACTION_REFUSED', details: { reason: error.message } });
    const pending = await sql(`SELECT 1 FROM chain_transactions WHERE from_address = $1 AND status = 'pending'`, [
      dev.walletAddress,
    ]);
    expect(pending).toHaveLength(0);
    const [refused] = await sql<{ nonce: string }>(
      `SELECT nonce FROM chain_transactions WHERE from_address = $1 AND status = 'dropped' ORDER BY created_at DESC LIMIT 1`,
      [dev.walletAddress],
    );
    const next = await invoke('bump');
    expect(next.body.status).toBe('success');
    expect((await rowsOf(next.body.txHash))[0]!.nonce).toBe(refused!.nonce);
  });

  it('answers a sender outside the permissioning allowlist with 422 TRANSACTION_REFUSED (-32007)', async () => {
    front().setAllowlist([new Wallet('0x' + '22'.repeat(32)).address]);
    try {
      const res = await invoke('bump');
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({
        code: 'TRANSACTION_REFUSED',
        details: { reason: 'Sender account not authorized to send transactions' },
      });
    } finally {
      front().setAllowlist(undefined);
    }
    expect((await invoke('bump')).body.status).toBe('success');
  });

  it('answers Besu upfront cost exceeds balance (-32004) with 422 INSUFFICIENT_FUNDS', async () => {
    front().inject({ kind: 'refuse', ...BESU_ERRORS.upfrontCost });
    const res = await invoke('bump');
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('INSUFFICIENT_FUNDS');
  });

  it('re-sends a transaction the node accepted and lost, and it lands', async () => {
    front().inject({ kind: 'drop' });
    const res = await invoke('bump');
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('success');
    expect(front().dropped.map((raw) => Transaction.from(raw).hash)).toContain(res.body.txHash);
  }, 60_000);

  it('re-sends a transaction lost by the node again and again, at most every 10 s, and it lands', async () => {
    front().inject({ kind: 'drop' }, 2);
    const res = await invoke('bump');
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('success');
    const sends = front().dropped.filter((raw) => Transaction.from(raw).hash === res.body.txHash);
    expect(sends).toHaveLength(2);
  }, 60_000);

  it('follows a send the node never answered (timeout) by its hash, and it lands', async () => {
    const started = Date.now();
    front().inject({ kind: 'hang' });
    const res = await invoke('bump');
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('success');
    // The wallet's lock is not held for the whole 30 s request timeout.
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 90_000);

  it('tracks a send whose connection was reset (outcome unknown) by its hash, and it lands', async () => {
    front().inject({ kind: 'reset' });
    const res = await invoke('bump');
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('success');
  }, 60_000);

  it('answers status reverted with the revertReason from the receipt', async () => {
    const [a, b] = await Promise.all([invoke('once'), invoke('once')]);
    const outcomes = [a!.body, b!.body].sort((x: any, y: any) => x.status.localeCompare(y.status));
    expect(outcomes.map((o: any) => o.status)).toEqual(['reverted', 'success']);
    expect(outcomes[0].revertReason).toBe('already done');
    expect(outcomes[1]).not.toHaveProperty('revertReason');
  });

  it('does not count a faucet drip the node refused', async () => {
    const other = await login(api, stack.ca);
    front().inject({ kind: 'refuse', ...BESU_ERRORS.senderNotAuthorized });
    const refused = await api.post('/api/devportal/faucet/drip', {}, { token: other.token });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('TRANSACTION_REFUSED');
    const ok = await api.post('/api/devportal/faucet/drip', {}, { token: other.token });
    expect(ok.status).toBe(201);
    expect(ok.body.dripsUsedToday).toBe(1);
  });

  it('leaves a deployment the node refused failed, not deploying', async () => {
    front().inject({ kind: 'refuse', ...BESU_ERRORS.gasPriceTooLow });
    const res = await api.post('/api/devportal/contracts/deploy', { source: ONCE_SOURCE }, { token: dev.token });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('TRANSACTION_REFUSED');
    const rows = await sql<{ status: string }>(
      `SELECT status FROM contracts WHERE owner_id = $1 AND status = 'deploying'`,
      [dev.developerId],
    );
    expect(rows).toHaveLength(0);
  });

  it('replaces a transaction never mined by a priced-up no-op with its nonce, and the wallet goes on', async () => {
    const provider = providerOf(stack, 'testnet');
    const wallet = await (await stack.app.services.wallets.custodialSigner(dev.developerId)).open(provider);
    const nonce = await provider.getTransactionCount(dev.walletAddress, 'pending');
    const raw = await wallet.signTransaction({
      chainId: 17991,
      nonce,
      to: Wallet.createRandom().address,
      value: 1n,
      gasLimit: 21000n,
      maxFeePerGas: MIN_GAS_PRICE * 2n,
      maxPriorityFeePerGas: MIN_GAS_PRICE,
      type: 2,
    });
    const hash = Transaction.from(raw).hash!;
    // Recorded a minute ago and lost by the node ever since.
    await sql(
      `INSERT INTO chain_transactions (network, from_address, to_address, nonce, tx_hash, raw_tx, kind, value_wei, developer_id, status, created_at)
       VALUES ('testnet', $1, NULL, $2, $3, $4, 'invoke', '1', $5, 'pending', now() - interval '60 seconds')`,
      [dev.walletAddress, nonce, hash, raw, dev.developerId],
    );
    await trackerPass(stack);
    const rows = await sql<{ tx_hash: string; status: string; kind: string; raw_tx: string }>(
      `SELECT tx_hash, status, kind, raw_tx FROM chain_transactions WHERE from_address = $1 AND nonce = $2`,
      [dev.walletAddress, nonce],
    );
    expect(rows.find((r) => r.tx_hash === hash)?.status).toBe('dropped');
    const filler = rows.find((r) => r.kind === 'nonce-filler')!;
    expect(filler).toBeDefined();
    const replacement = Transaction.from(filler.raw_tx);
    expect(replacement.maxPriorityFeePerGas! > MIN_GAS_PRICE).toBe(true);
    expect(replacement.to).toBe(dev.walletAddress);
    expect((await provider.waitForTransaction(filler.tx_hash, 1, 10_000))?.status).toBe(1);
    expect((await invoke('bump')).body.status).toBe('success');
  }, 60_000);

  it('uncounts a faucet drip whose transaction was never mined once the tracker gives it up', async () => {
    const other = await login(api, stack.ca);
    const provider = providerOf(stack, 'testnet');
    const faucet = new Wallet(stack.app.faucetPrivateKey!, provider);
    const nonce = await provider.getTransactionCount(faucet.address, 'pending');
    const raw = await faucet.signTransaction({
      chainId: 17991,
      nonce,
      to: other.walletAddress,
      value: 10n ** 19n,
      gasLimit: 21000n,
      maxFeePerGas: MIN_GAS_PRICE * 2n,
      maxPriorityFeePerGas: MIN_GAS_PRICE,
      type: 2,
    });
    const hash = Transaction.from(raw).hash!;
    // A drip recorded and counted a minute ago whose transaction the node lost.
    await sql(
      `INSERT INTO chain_transactions (network, from_address, to_address, nonce, tx_hash, raw_tx, kind, value_wei, developer_id, status, created_at)
       VALUES ('testnet', $1, $2, $3, $4, $5, 'faucet', '10000000000000000000', $6, 'pending', now() - interval '60 seconds')`,
      [faucet.address, other.walletAddress, nonce, hash, raw, other.developerId],
    );
    await sql(`INSERT INTO faucet_drips (developer_id, day, amount_wei, tx_hash) VALUES ($1, $2, $3, $4)`, [
      other.developerId,
      new Date().toISOString().slice(0, 10),
      '10000000000000000000',
      hash,
    ]);
    await trackerPass(stack);
    expect(await sql(`SELECT 1 FROM faucet_drips WHERE tx_hash = $1`, [hash])).toHaveLength(0);
    const drip = await api.post('/api/devportal/faucet/drip', {}, { token: other.token });
    expect(drip.status).toBe(201);
    expect(drip.body.dripsUsedToday).toBe(1);
  }, 60_000);

  it('keeps to the connection cap towards the node (RPC_MAX_CONNECTIONS, 16 by default)', async () => {
    await Promise.all(
      Array.from({ length: 60 }, () =>
        api.post(`/api/devportal/contracts/${contract.id}/query/count`, {}, { apiKey: key }),
      ),
    );
    expect(front().peakConnections).toBeLessThanOrEqual(16);
  });
});

describe('two instances on one database, against the Besu front', () => {
  let sibling: ServiceProcess;

  beforeAll(async () => {
    sibling = await spawnSibling(stack);
  }, 60_000);
  afterAll(async () => {
    await sibling?.stop();
  });

  it('lands every invoke from one wallet across both, answers refused ones at once, and leaves no nonce gap', async () => {
    const second = client(sibling.url);
    front().inject({ kind: 'refuse', ...BESU_ERRORS.gasPriceTooLow }, 3);
    front().inject({ kind: 'drop' }, 1);
    front().inject({ kind: 'reset' }, 1);
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        (i % 2 ? api : second).post(`/api/devportal/contracts/${contract.id}/invoke/bump`, {}, { apiKey: key }),
      ),
    );
    const refused = results.filter((r) => r.status === 422);
    const landed = results.filter((r) => r.status === 201);
    // Any other answer, shown whole, with what the sibling instance logged as errors.
    const others = results.filter((r) => r.status !== 201 && r.status !== 422);
    if (others.length > 0) {
      const siblingErrors = sibling
        .output()
        .split('\n')
        .filter((l) => l.includes('"level":50'));
      console.error([...errorLines, ...siblingErrors].join('\n'));
    }
    expect(others.map((r) => [r.status, r.body])).toEqual([]);
    expect(refused).toHaveLength(3);
    for (const r of refused) expect(r.body.error.code).toBe('TRANSACTION_REFUSED');
    expect(landed).toHaveLength(13);
    for (const r of landed) expect(r.body.status).toBe('success');
    const pending = await sql(`SELECT 1 FROM chain_transactions WHERE from_address = $1 AND status = 'pending'`, [
      dev.walletAddress,
    ]);
    expect(pending).toHaveLength(0);
    // No gap: every nonce up to the node's count is taken by a mined transaction of the wallet.
    const provider = providerOf(stack, 'testnet');
    const count = await provider.getTransactionCount(dev.walletAddress, 'latest');
    expect(await provider.getTransactionCount(dev.walletAddress, 'pending')).toBe(count);
    const mined = await sql<{ nonce: string }>(
      `SELECT DISTINCT nonce FROM chain_transactions WHERE from_address = $1 AND status IN ('success', 'reverted')`,
      [dev.walletAddress],
    );
    expect(mined.map((r) => Number(r.nonce)).sort((a, b) => a - b)).toEqual(Array.from({ length: count }, (_, i) => i));
  }, 120_000);
});
