// 100 concurrent invokes from one wallet through the Besu-faithful front (tests/kit/besu-node.ts):
// JWT authentication and a minimum gas price of 2 gwei, 1-second blocks, the service as its own process.
import 'reflect-metadata';
import { deployRegistered, newKey } from '../tests/kit/flows';
import { TOKEN_SOURCE } from '../tests/kit/solidity';
import { BESU_BENCH_MIN_GAS_PRICE, startBesuBenchStack } from './kit';

async function main(): Promise<void> {
  const stack = await startBesuBenchStack({
    API_KEY_RATE_LIMIT: '0',
    ...(process.env.BENCH_RPC_MAX_CONNECTIONS
      ? { TESTNET_RPC_MAX_CONNECTIONS: process.env.BENCH_RPC_MAX_CONNECTIONS }
      : {}),
  });
  const { api, dev, testnet } = stack;
  try {
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
        `round ${round}: 100 concurrent invokes from one wallet through the Besu front (min gas price ${BESU_BENCH_MIN_GAS_PRICE} wei): ` +
          `${succeeded}/100 succeeded, ${refused} refused, in ${seconds.toFixed(2)} s; ` +
          `401 answers ${testnet.front.unauthorized}, peak sockets ${testnet.front.peakConnections}; ` +
          `sends from ${testnet.front.sendTimes[0]! - started} ms to ${testnet.front.sendTimes.at(-1)! - started} ms`,
      );
    }
  } finally {
    await stack.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
