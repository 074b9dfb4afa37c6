// 100 concurrent invokes from one wallet through the Besu-faithful front (tests/kit/besu-node.ts):
// JWT authentication and a minimum gas price of 2 gwei, 1-second blocks, the service as its own process.
import 'reflect-metadata';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDevCa } from '../src/modules/accounts/eds/dev-ca';
import { startBesuChain } from '../tests/kit/besu-node';
import { deployRegistered, newKey } from '../tests/kit/flows';
import { client } from '../tests/kit/http';
import { login } from '../tests/kit/login';
import { serviceEnv, spawnService } from '../tests/kit/process';
import { TOKEN_SOURCE } from '../tests/kit/solidity';
import { createTestDatabase } from '../tests/kit/stack';
import { productionEnvOn } from './kit';

const MIN_GAS_PRICE = 2_000_000_000n;

async function main(): Promise<void> {
  const db = await createTestDatabase();
  const dir = mkdtempSync(path.join(tmpdir(), 'devportal-bench-'));
  const ca = await createDevCa({ commonName: 'Bench CA' });
  writeFileSync(path.join(dir, 'ca.pem'), ca.certificatePem);
  const token = 'bench-jwt';
  const testnet = await startBesuChain(17991, { token, minGasPrice: MIN_GAS_PRICE, maxConnections: 80 });
  const mainnet = await startBesuChain(1991, { token, minGasPrice: MIN_GAS_PRICE, maxConnections: 80 });
  const headers = JSON.stringify(testnet.front.headers);
  const service = await spawnService(
    serviceEnv(
      {
        databaseUrl: db.url,
        testnetUrl: testnet.front.url,
        mainnetUrl: mainnet.front.url,
        trustedCaFile: path.join(dir, 'ca.pem'),
      },
      {
        // Production start-up: a faucet key of its own (funded on the anvil behind the front), strong secrets.
        ...(await productionEnvOn({ url: testnet.anvilUrl }, { url: mainnet.anvilUrl })),
        TESTNET_RPC_URL: testnet.front.url,
        MAINNET_RPC_URL: mainnet.front.url,
        LOG_LEVEL: 'warn',
        API_KEY_RATE_LIMIT: '0',
        TESTNET_RPC_HEADERS: headers,
        MAINNET_RPC_HEADERS: headers,
        TESTNET_GAS_PRICE_WEI: MIN_GAS_PRICE.toString(),
        MAINNET_GAS_PRICE_WEI: MIN_GAS_PRICE.toString(),
        ...(process.env.BENCH_RPC_MAX_CONNECTIONS
          ? { TESTNET_RPC_MAX_CONNECTIONS: process.env.BENCH_RPC_MAX_CONNECTIONS }
          : {}),
      },
    ),
  );
  try {
    const api = client(service.url);
    const dev = await login(api, ca);
    await api.post('/api/devportal/faucet/drip', {}, { token: dev.token });
    const contract = await deployRegistered(api, dev, TOKEN_SOURCE, ['1000000']);
    const key = (await newKey(api, dev)).apiKey;
    for (let round = 1; round <= Number(process.env.BENCH_ROUNDS ?? 2); round++) {
      const started = Date.now();
      testnet.front.sendTimes.length = 0;
      const invokes = await Promise.all(
        Array.from({ length: 100 }, () =>
          api.post(
            `/api/devportal/contracts/${contract.id}/invoke/transfer`,
            { args: [contract.address, '1'] },
            { apiKey: key },
          ),
        ),
      );
      const seconds = (Date.now() - started) / 1000;
      const succeeded = invokes.filter((r) => r.status === 201 && r.body.status === 'success').length;
      const refused = invokes.filter((r) => r.status === 422).length;
      console.log(
        `round ${round}: 100 concurrent invokes from one wallet through the Besu front (min gas price ${MIN_GAS_PRICE} wei): ` +
          `${succeeded}/100 succeeded, ${refused} refused, in ${seconds.toFixed(2)} s; ` +
          `401 answers ${testnet.front.unauthorized}, peak sockets ${testnet.front.peakConnections}; ` +
          `sends from ${testnet.front.sendTimes[0]! - started} ms to ${testnet.front.sendTimes.at(-1)! - started} ms`,
      );
    }
  } finally {
    await service.stop();
    await testnet.stop();
    await mainnet.stop();
    await db.drop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
