// Gateway throughput against the node it fronts, measured in one run:
//   eth_call balanceOf straight to the node (baseline) vs the gateway's REST query vs GraphQL,
//   then 100 concurrent invokes from one wallet with a 1-second block time.
// Run: npm run bench:gateway
import { Interface } from 'ethers';
import { TOKEN_SOURCE } from '../tests/kit/solidity';
import { load, machine, startBenchStack, type LoadResult } from './kit';

async function main(): Promise<void> {
  const stack = await startBenchStack({ API_KEY_RATE_LIMIT: '0' });
  try {
    const { api, dev } = stack;
    await api.post('/api/devportal/faucet/drip', {}, { token: dev.token });
    const token = (
      await api.post(
        '/api/devportal/contracts/deploy',
        { source: TOKEN_SOURCE, constructorArgs: ['1000000'] },
        { token: dev.token },
      )
    ).body;
    await api.post(`/api/devportal/contracts/${token.id}/register-middleware`, {}, { token: dev.token });
    const key = (await api.post(`/api/devportal/developers/${dev.developerId}/api-keys`, {}, { token: dev.token })).body
      .apiKey as string;
    const data = new Interface(token.abi).encodeFunctionData('balanceOf', [dev.walletAddress]);

    const seconds = Number(process.env.BENCH_SECONDS ?? 10);
    const results: LoadResult[] = [];
    results.push(
      await load('node eth_call (baseline)', {
        url: stack.nodes.testnet.url,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'eth_call',
          params: [{ to: token.address, data }, 'latest'],
        }),
        seconds,
      }),
    );
    results.push(
      await load('gateway REST query', {
        url: `${stack.url}/api/devportal/contracts/${token.id}/query/balanceOf`,
        body: JSON.stringify({ args: [dev.walletAddress] }),
        headers: { 'x-api-key': key },
        seconds,
      }),
    );
    results.push(
      await load('gateway GraphQL queryContract', {
        url: `${stack.url}/graphql`,
        body: JSON.stringify({
          query: `mutation { queryContract(id: "${token.id}", method: "balanceOf", args: ["${dev.walletAddress}"]) { result } }`,
        }),
        headers: { 'x-api-key': key },
        seconds,
      }),
    );

    // 100 concurrent invokes from one wallet.
    const started = Date.now();
    const invokes = await Promise.all(
      Array.from({ length: 100 }, () =>
        api.post(
          `/api/devportal/contracts/${token.id}/invoke/transfer`,
          { args: [token.address, '1'] },
          { apiKey: key },
        ),
      ),
    );
    const invokeSeconds = (Date.now() - started) / 1000;
    const succeeded = invokes.filter((r) => r.status === 201 && r.body.status === 'success').length;

    const base = results[0]!;
    console.log(`\nMachine: ${machine()}\n`);
    console.log('| run | requests/s | p50 ms | p99 ms | errors | non-2xx | throughput vs node | p50 added |');
    console.log('|---|---|---|---|---|---|---|---|');
    for (const r of results) {
      const ratio = (r.requestsPerSecond / base.requestsPerSecond).toFixed(2);
      console.log(
        `| ${r.name} | ${r.requestsPerSecond} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.non2xx} | ${ratio} | ${r === base ? '-' : `${r.p50 - base.p50} ms`} |`,
      );
    }
    console.log(
      `\n100 concurrent invokes from one wallet: ${succeeded}/100 succeeded in ${invokeSeconds.toFixed(2)} s`,
    );
  } finally {
    await stack.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
