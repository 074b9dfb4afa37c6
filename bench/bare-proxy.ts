// The floor under any Node gateway on this machine: a bare HTTP server that forwards each request
// body to the node over a keep-alive undici pool and returns the node's answer, nothing else (no
// routing, no keys, no ABI, no GraphQL). Started by gateway.bench.ts as its own process.
// With --from-memory it forwards nothing and answers every request with the same small JSON body
// the gateway's hot read answers (the ceiling of any one-process Node HTTP answer on this machine).
// Usage: node dist/bench/bare-proxy.js <node url> [--from-memory]  (prints the port it listens on)
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';

const target = new URL(process.argv[2] ?? 'http://127.0.0.1:8545');
const pool = new Pool(target.origin, { connections: 64 });

const fromMemory = process.argv[3] === '--from-memory';
const ANSWER = JSON.stringify({ result: '1000000' });

const server = http.createServer((req, res) => {
  if (fromMemory) {
    req.resume();
    req.on('end', () => {
      res.writeHead(201, { 'content-type': 'application/json; charset=utf-8', 'content-length': ANSWER.length });
      res.end(ANSWER);
    });
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    pool
      .request({
        path: target.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: Buffer.concat(chunks),
      })
      .then(async (answer) => {
        const body = await answer.body.text();
        res.writeHead(answer.statusCode, { 'content-type': 'application/json' });
        res.end(body);
      })
      .catch(() => {
        res.writeHead(502);
        res.end();
      });
  });
});
server.listen(0, '127.0.0.1', () => {
  console.log(String((server.address() as AddressInfo).port));
});
process.on('SIGTERM', () => {
  server.close();
  void pool.close();
  process.exit(0);
});
