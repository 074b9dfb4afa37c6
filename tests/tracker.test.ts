import { Wallet, parseEther } from 'ethers';
import { providerOf } from './kit/chain';
import { client, type Client } from './kit/http';
import { login, type LoggedIn } from './kit/login';
import { startStack, type Stack, sqlRows } from './kit/stack';

let stack: Stack;
let api: Client;
let dev: LoggedIn;

const sql = <T>(text: string, params: unknown[] = []) => sqlRows<T>(stack, text, params);

beforeAll(async () => {
  stack = await startStack();
  api = client(stack.url);
  dev = await login(api, stack.ca);
  expect((await api.post('/api/devportal/faucet/drip', {}, { token: dev.token })).status).toBe(201);
  // These tests drive the tracker's passes themselves: its timer could otherwise broadcast a
  // recorded transaction between the test's insert and its check that the node has not seen it.
  await stack.app.services.tracker.stop();
});
afterAll(async () => {
  await stack?.stop();
});

/** Signs a transfer with the developer's custodial key and records it as the sender would, without broadcasting it. */
async function recordWithoutBroadcast(nonce: number, value: bigint, createdSecondsAgo = 10) {
  const { wallets } = stack.app.services;
  const provider = providerOf(stack, 'testnet');
  const wallet = await (await wallets.custodialSigner(dev.developerId)).open(provider);
  const fee = await provider.getFeeData();
  const raw = await wallet.signTransaction({
    chainId: 17991,
    nonce,
    to: Wallet.createRandom().address,
    value,
    gasLimit: 21000n,
    maxFeePerGas: fee.maxFeePerGas!,
    maxPriorityFeePerGas: fee.maxPriorityFeePerGas!,
    type: 2,
  });
  const { Transaction } = await import('ethers');
  const hash = Transaction.from(raw).hash!;
  await sql(
    `INSERT INTO chain_transactions (network, from_address, to_address, nonce, tx_hash, raw_tx, kind, value_wei, developer_id, status, created_at)
     VALUES ('testnet', $1, NULL, $2, $3, $4, 'invoke', $5, $6, 'pending', now() - ($7 || ' seconds')::interval)`,
    [dev.walletAddress, nonce, hash, raw, value.toString(), dev.developerId, String(createdSecondsAgo)],
  );
  return hash;
}

describe('transaction tracker', () => {
  it('broadcasts a recorded transaction that never reached the node (crash after signing) and records its receipt', async () => {
    const provider = providerOf(stack, 'testnet');
    const nonce = await provider.getTransactionCount(dev.walletAddress, 'pending');
    const hash = await recordWithoutBroadcast(nonce, 1n);
    expect(await provider.getTransaction(hash)).toBeNull();
    await stack.app.services.tracker.tick();
    await provider.waitForTransaction(hash, 1, 10_000);
    await stack.app.services.tracker.tick();
    const [row] = await sql<{ status: string; block_number: string }>(
      `SELECT status, block_number FROM chain_transactions WHERE tx_hash = $1`,
      [hash],
    );
    expect(row).toMatchObject({ status: 'success' });
    expect(Number(row!.block_number)).toBeGreaterThan(0);
  });

  it('fills the nonce of a transaction that can never land, so later ones go through', async () => {
    const provider = providerOf(stack, 'testnet');
    const nonce = await provider.getTransactionCount(dev.walletAddress, 'pending');
    // Far more than the wallet holds: every node refuses it, and it blocks the nonce.
    const stuck = await recordWithoutBroadcast(nonce, parseEther('1000000'), 600);
    // A pass may find the tracker's lock held by another (the tick then skips): tick again.
    let rows: Array<{ tx_hash: string; status: string; kind: string }> = [];
    for (let i = 0; i < 20; i++) {
      await stack.app.services.tracker.tick();
      rows = await sql<{ tx_hash: string; status: string; kind: string }>(
        `SELECT tx_hash, status, kind FROM chain_transactions WHERE from_address = $1 AND nonce = $2 ORDER BY created_at`,
        [dev.walletAddress, nonce],
      );
      if (rows.find((r) => r.tx_hash === stuck)?.status !== 'pending') break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(rows.find((r) => r.tx_hash === stuck)).toMatchObject({ status: 'dropped' });
    const filler = rows.find((r) => r.kind === 'nonce-filler');
    expect(filler).toBeDefined();
    const receipt = await provider.waitForTransaction(filler!.tx_hash, 1, 10_000);
    expect(receipt?.status).toBe(1);
    expect(await provider.getTransactionCount(dev.walletAddress)).toBe(nonce + 1);
    // The wallet's history shows the filler as what it is on chain, a transfer the wallet sent
    // (docs/api.md, "Wallet and faucet"'s kinds); no item has a kind outside them.
    const history = await api.get(`/api/devportal/developers/${dev.developerId}/wallet-history?limit=100`, {
      token: dev.token,
    });
    const shown = history.body.items.find((i: { txHash: string }) => i.txHash === filler!.tx_hash);
    expect(shown).toMatchObject({ kind: 'transfer-out', txHash: filler!.tx_hash });
    for (const item of history.body.items as Array<{ kind: string }>) {
      expect(['faucet', 'deploy', 'invoke', 'transfer-in', 'transfer-out']).toContain(item.kind);
    }
  });
});
