// Contract-event delivery latency, measured in one run against the live-block push:
//   from the moment the node has a block (seen by polling it every 10 ms) to the arrival of
//   - the block on a `liveBlocks` subscription (the baseline),
//   - each of its events on a `contractEvents` subscription,
//   - each of its events at a webhook receiver (signature verified),
// while a contract emits `BENCH_EVENTS_PER_SECOND` events a second (default 100) for
// `BENCH_SECONDS` (default 300) on 1-second blocks.
//
//   npm run bench:events
import 'reflect-metadata';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Interface, Wallet } from 'ethers';
import { createClient, type Client as WsClient } from 'graphql-ws';
import { Webhook } from 'standardwebhooks';
import WebSocket from 'ws';
import { LOCAL_NODE_FUNDED_KEY } from '../src/chain/local-node';
import { deployRegistered } from '../tests/kit/flows';
import { percentile, round, rpc } from './explorer-chain';
import { machine, startBenchStack } from './kit';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 300);
const EVENTS_PER_SECOND = Number(process.env.BENCH_EVENTS_PER_SECOND ?? 100);
/** Transactions a second; each emits EVENTS_PER_SECOND / TX_PER_SECOND events. */
const TX_PER_SECOND = 10;
const log = (...args: unknown[]) => console.log(new Date().toISOString().slice(11, 19), ...args);

const EMITTER = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Emitter {
    event Tick(uint256 indexed seq, uint256 batch);
    function tick(uint256 from, uint256 count) external {
        for (uint256 i = 0; i < count; i++) emit Tick(from + i, from);
    }
}
`;

interface Series {
  name: string;
  latencies: number[];
  /** Sequence numbers (events) or block numbers (blocks), in arrival order. */
  arrivals: number[];
}

function series(name: string): Series {
  return { name, latencies: [], arrivals: [] };
}

function summary(s: Series, expected: number[]) {
  const sorted = [...s.latencies].sort((a, b) => a - b);
  const got = s.arrivals.filter((n) => expected.includes(n));
  const inOrder = got.every((n, i) => i === 0 || n > got[i - 1]!);
  const missing = expected.filter((n) => !got.includes(n)).length;
  return {
    name: s.name,
    received: got.length,
    expected: expected.length,
    missing,
    duplicates: got.length - new Set(got).size,
    inOrder,
    p50: round(percentile(sorted, 50)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted[sorted.length - 1] ?? NaN),
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function main(): Promise<void> {
  const stack = await startBenchStack({ API_KEY_RATE_LIMIT: '0', WEBHOOK_ALLOW_PRIVATE: 'true' });
  const clients: WsClient[] = [];
  const receiver = createServer();
  try {
    const { api, dev } = stack;
    const nodeUrl = stack.nodes.testnet.url;
    await api.post('/api/devportal/faucet/drip', {}, { token: dev.token });
    const emitter = await deployRegistered(api, dev, EMITTER);

    // When each block was first seen at the node.
    const seenAt = new Map<number, number>();
    let polling = true;
    const poll = (async () => {
      while (polling) {
        const n = Number(BigInt((await rpc(nodeUrl, 'eth_blockNumber')) as string));
        if (!seenAt.has(n)) seenAt.set(n, performance.now());
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    const latencyOf = (block: number) => {
      const at = seenAt.get(block);
      return at === undefined ? undefined : performance.now() - at;
    };

    const blocks = series('liveBlocks subscription (baseline)');
    const subscribed = series('contractEvents subscription');
    const hooked = series('webhook');

    // The webhook receiver: verifies every signature, answers 204.
    const signatures: { verifier?: Webhook } = {};
    let badSignatures = 0;
    receiver.on('request', (req, res) => {
      void readBody(req).then((body) => {
        try {
          signatures.verifier!.verify(body, req.headers as Record<string, string>);
        } catch {
          badSignatures++;
        }
        const msg = JSON.parse(body) as { data: { blockNumber: number; args: { seq: string } } };
        const latency = latencyOf(msg.data.blockNumber);
        if (latency !== undefined) hooked.latencies.push(latency);
        hooked.arrivals.push(Number(msg.data.args.seq));
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const created = await api.post(
      `/api/devportal/developers/${dev.developerId}/webhooks`,
      { url: hookUrl, events: ['contract.event'], contractId: emitter.id },
      { token: dev.token },
    );
    if (created.status !== 201) throw new Error(`webhook: ${created.status} ${JSON.stringify(created.body)}`);
    signatures.verifier = new Webhook(created.body.secret as string);

    const wsUrl = `${stack.url.replace('http', 'ws')}/graphql`;
    const ws = createClient({
      url: wsUrl,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      connectionParams: { authorization: `Bearer ${dev.token}` },
    });
    clients.push(ws);
    const fromBlock = Number(BigInt((await rpc(nodeUrl, 'eth_blockNumber')) as string)) + 1;
    ws.subscribe<{ liveBlocks: { number: number } }>(
      { query: 'subscription { liveBlocks(network: testnet) { number } }' },
      {
        next: ({ data }) => {
          const n = data!.liveBlocks.number;
          const latency = latencyOf(n);
          if (latency !== undefined) blocks.latencies.push(latency);
          blocks.arrivals.push(n);
        },
        error: (e) => console.error('liveBlocks error', e),
        complete: () => undefined,
      },
    );
    ws.subscribe<{ contractEvents: { blockNumber: number; args: { seq: string } } }>(
      {
        query: `subscription { contractEvents(contractId: "${emitter.id}", fromBlock: ${fromBlock}) { blockNumber logIndex args } }`,
      },
      {
        next: ({ data, errors }) => {
          if (errors) return console.error('contractEvents errors', errors);
          const e = data!.contractEvents;
          const latency = latencyOf(e.blockNumber);
          if (latency !== undefined) subscribed.latencies.push(latency);
          subscribed.arrivals.push(Number(e.args.seq));
        },
        error: (e) => console.error('contractEvents error', e),
        complete: () => undefined,
      },
    );
    await new Promise((r) => setTimeout(r, 2_000));

    // The load: TX_PER_SECOND transactions a second straight to the node, from a funded account.
    const sender = new Wallet(LOCAL_NODE_FUNDED_KEY);
    const iface = new Interface(['function tick(uint256 from, uint256 count)']);
    const perTx = Math.max(1, Math.round(EVENTS_PER_SECOND / TX_PER_SECOND));
    let nonce = Number(BigInt((await rpc(nodeUrl, 'eth_getTransactionCount', [sender.address, 'pending'])) as string));
    const gasPrice = BigInt((await rpc(nodeUrl, 'eth_gasPrice')) as string) * 2n;
    const firstBlockSent = Number(BigInt((await rpc(nodeUrl, 'eth_blockNumber')) as string)) + 1;
    log(`machine: ${machine()}; ${EVENTS_PER_SECOND} events/s for ${SECONDS} s from block ${firstBlockSent}`);
    let seq = 0;
    const started = performance.now();
    for (let tx = 0; tx < SECONDS * TX_PER_SECOND; tx++) {
      const raw = await sender.signTransaction({
        to: emitter.address,
        data: iface.encodeFunctionData('tick', [seq, perTx]),
        nonce: nonce++,
        gasLimit: 30_000n + 5_000n * BigInt(perTx),
        gasPrice,
        chainId: 17991,
        type: 0,
      });
      await rpc(nodeUrl, 'eth_sendRawTransaction', [raw]);
      seq += perTx;
      const due = started + ((tx + 1) * 1000) / TX_PER_SECOND;
      await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
      if (tx % (TX_PER_SECOND * 30) === 0) log(`${Math.round(tx / TX_PER_SECOND)} s: ${seq} events sent`);
    }
    const lastBlockSent = Number(BigInt((await rpc(nodeUrl, 'eth_blockNumber')) as string));
    log(`sent ${seq} events; draining`);
    const expected = Array.from({ length: seq }, (_, i) => i);
    const drainUntil = Date.now() + 60_000;
    while ((subscribed.arrivals.length < seq || hooked.arrivals.length < seq) && Date.now() < drainUntil) {
      await new Promise((r) => setTimeout(r, 200));
    }
    polling = false;
    await poll;

    const blockNumbers = Array.from({ length: lastBlockSent - firstBlockSent + 1 }, (_, i) => firstBlockSent + i);
    const base = summary(blocks, blockNumbers);
    const rows = [base, summary(subscribed, expected), summary(hooked, expected)];
    console.log(
      JSON.stringify(
        {
          machine: machine(),
          seconds: SECONDS,
          eventsPerSecond: EVENTS_PER_SECOND,
          events: seq,
          badSignatures,
          rows: rows.map((r) => ({
            ...r,
            p50VsLiveBlocks: round(r.p50 / base.p50, 2),
            p99VsLiveBlocks: round(r.p99 / base.p99, 2),
          })),
        },
        null,
        2,
      ),
    );
  } finally {
    await Promise.all(clients.map((c) => c.dispose()));
    receiver.close();
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
