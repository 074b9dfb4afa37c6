/**
 * TEST DOUBLE of a Hyperledger Besu QBFT node's JSON-RPC front, for behaviour no real part here can
 * show: a JSON-RPC server started by the tests in front of a real anvil, which answers as Besu does
 * where anvil does not. Everything it does not imitate is anvil's own answer. Imitated, from
 * hyperledger/besu (ethereum/api/src/main/java/org/hyperledger/besu/ethereum/api/jsonrpc/...):
 * - JWT authentication (`--rpc-http-authentication-enabled`, `-jwt-public-key-file`): a request
 *   without a valid bearer token → HTTP 401 with `{"code":-40100,"message":"Unauthorized"}`
 *   (internal/response/RpcErrorType.UNAUTHORIZED, JsonRpcUnauthorizedResponse). The token is
 *   checked by equality here (Besu verifies its signature with the configured public key).
 * - `--min-gas-price` (default 1000 wei): a transaction priced below → -32009 "Gas price below
 *   configured minimum gas price" (RpcErrorType.GAS_PRICE_TOO_LOW, TransactionInvalidReason.GAS_PRICE_TOO_LOW).
 * - Account permissioning (`--permissions-accounts-config-file`): a sender outside the allowlist →
 *   -32007 "Sender account not authorized to send transactions" (RpcErrorType.TX_SENDER_NOT_AUTHORIZED).
 * - `--tx-pool-max-future-by-sender` (default 200): a nonce that far ahead → -32000 "Transaction
 *   nonce is too distant from current sender nonce" (RpcErrorType.NONCE_TOO_FAR_IN_FUTURE_FOR_SENDER).
 * - Nonce below the account's → -32001 "Nonce too low"; gas limit below intrinsic gas → -32003
 *   "Intrinsic gas exceeds gas limit"; upfront cost above balance → -32004 "Upfront cost exceeds
 *   account balance"; a transaction already in the pool → -32000 "Known transaction"
 *   (RpcErrorType.NONCE_TOO_LOW, INTRINSIC_GAS_EXCEEDS_LIMIT, TRANSACTION_UPFRONT_COST_EXCEEDS_BALANCE,
 *   ETH_SEND_TX_ALREADY_KNOWN).
 * - `qbft_getValidatorsByBlockNumber` (consensus/qbft/.../jsonrpc/methods/QbftGetValidatorsByBlockNumber).
 * - `--revert-reason-enabled`: a failed receipt carries `revertReason`, the hex revert data
 *   (TransactionReceiptResult.getRevertReason).
 * - `--rpc-http-max-active-connections` (default 80): connections beyond it are closed.
 * - WebSocket (`--rpc-ws-enabled`, `--rpc-ws-authentication-enabled`): an upgrade on the same port
 *   (here; Besu's default is its own port 8546) without the bearer token → HTTP 401, and no socket;
 *   with it, the socket is anvil's own WebSocket (eth_subscribe newHeads...), relayed frame by frame.
 * - Batches (handlers/JsonRpcArrayExecutor): the entries are executed one after another, and a
 *   batch longer than `--rpc-http-max-batch-size` (default 1024) is refused whole, HTTP 200 with
 *   `{"id":null,"error":{"code":-32005,"message":"Number of requests exceeds max batch size"}}`
 *   (RpcErrorType.EXCEEDS_RPC_MAX_BATCH_SIZE, AbstractJsonRpcExecutor.handleJsonRpcError).
 * On command it also loses transactions (answers a hash, never forwards: a pool eviction), refuses
 * them with a given error, or never answers (a timeout), so the tests can break every step.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Transaction } from 'ethers';
import { Pool } from 'undici';
import WebSocket, { WebSocketServer } from 'ws';
import { startLocalNode } from '../../src/chain/local-node';
import { createLogger } from '../../src/kernel/logger';

export interface BesuFrontOptions {
  /** The real node behind (anvil). */
  upstream: string;
  /** Required bearer token; undefined: no authentication. */
  token?: string;
  /** --min-gas-price in wei (Besu's default 1000). */
  minGasPrice?: bigint;
  /** Permissioning allowlist of senders (lower-case or checksummed); undefined: everyone. */
  allowlist?: string[];
  /** --tx-pool-max-future-by-sender (Besu default 200). */
  maxFutureBySender?: number;
  /** --rpc-http-max-active-connections (Besu default 80). */
  maxConnections?: number;
  /**
   * Answer of qbft_getValidatorsByBlockNumber; 'proposer': the block's coinbase (a QBFT proposer is
   * a validator); undefined: the method does not exist (-32601).
   */
  validators?: string[] | 'proposer';
  /** Answer of GoQuorum's istanbul_getValidators instead (Consensys/quorum consensus/istanbul/backend/api.go). */
  istanbulValidators?: string[];
  /** Put revertReason into failed receipts (Besu's --revert-reason-enabled). */
  revertReasons?: boolean;
  /** --rpc-http-max-batch-size (Besu default 1024). */
  maxBatchSize?: number;
}

type Fault =
  { kind: 'drop' } | { kind: 'refuse'; code: number; message: string } | { kind: 'hang' } | { kind: 'reset' };

interface RpcRequest {
  jsonrpc?: string;
  id?: unknown;
  method?: string;
  params?: unknown[];
}

interface RpcError {
  code: number;
  message: string;
  data?: string;
}

export const BESU_ERRORS = {
  unauthorized: { code: -40100, message: 'Unauthorized' },
  gasPriceTooLow: { code: -32009, message: 'Gas price below configured minimum gas price' },
  senderNotAuthorized: { code: -32007, message: 'Sender account not authorized to send transactions' },
  nonceTooDistant: { code: -32000, message: 'Transaction nonce is too distant from current sender nonce' },
  nonceTooLow: { code: -32001, message: 'Nonce too low' },
  intrinsicGas: { code: -32003, message: 'Intrinsic gas exceeds gas limit' },
  upfrontCost: { code: -32004, message: 'Upfront cost exceeds account balance' },
  knownTransaction: { code: -32000, message: 'Known transaction' },
  methodNotFound: { code: -32601, message: 'Method not found' },
  batchTooLarge: { code: -32005, message: 'Number of requests exceeds max batch size' },
} as const;

export interface BesuFront {
  url: string;
  /** The same node's WebSocket (ws://, same port). */
  wsUrl: string;
  /** WebSocket upgrades refused 401 (no or a wrong token). */
  wsUnauthorized: number;
  /** WebSocket sessions relayed to anvil so far. */
  wsSessions: number;
  /** Closes every WebSocket session (the node dropped them) and, with `refuse`, answers new upgrades 503 until called with false. */
  dropSockets(refuse?: boolean): void;
  /** Headers the service must send (the bearer token). */
  headers: Record<string, string>;
  /** Replaces the permissioning allowlist (undefined: everyone may send). */
  setAllowlist(list: string[] | undefined): void;
  /** The next `count` eth_sendRawTransaction calls get `fault`. */
  inject(fault: Fault, count?: number): void;
  /** Raw transactions answered with a hash but never forwarded. */
  dropped: string[];
  /** Number of requests answered 401. */
  unauthorized: number;
  /** Most sockets open at once. */
  peakConnections: number;
  /** Every method called, in order. */
  calls: string[];
  /** The size of each batch received (an array body), in order. */
  batches: number[];
  /** When each eth_sendRawTransaction arrived (ms since the epoch). */
  sendTimes: number[];
  stop(): Promise<void>;
}

const intrinsicGas = (tx: Transaction): bigint => {
  let gas = tx.to === null ? 53_000n : 21_000n;
  const data = Buffer.from(tx.data.slice(2), 'hex');
  for (const byte of data) gas += byte === 0 ? 4n : 16n;
  return gas;
};

export async function startBesuFront(opts: BesuFrontOptions): Promise<BesuFront> {
  const faults: Fault[] = [];
  const known = new Set<string>();
  const sockets = new Set<Socket>();
  const hanging = new Set<ServerResponse>();
  const maxFuture = BigInt(opts.maxFutureBySender ?? 200);
  let allow = opts.allowlist?.map((a) => a.toLowerCase());
  let nextId = 1;

  const anvil = new Pool(new URL(opts.upstream).origin, { connections: 32 });
  const upstream = async (method: string, params: unknown[]): Promise<{ result?: unknown; error?: RpcError }> => {
    const res = await anvil.request({
      path: '/',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
    });
    return (await res.body.json()) as { result?: unknown; error?: RpcError };
  };

  const wsServer = new WebSocketServer({ noServer: true });
  const relayed = new Set<WebSocket>();
  let refuseSockets = false;
  const front: BesuFront = {
    url: '',
    wsUrl: '',
    wsUnauthorized: 0,
    wsSessions: 0,
    dropSockets(refuse = false) {
      refuseSockets = refuse;
      for (const ws of relayed) ws.terminate();
    },
    headers: opts.token ? { Authorization: `Bearer ${opts.token}` } : {},
    setAllowlist(list) {
      allow = list?.map((a) => a.toLowerCase());
    },
    inject(fault, count = 1) {
      for (let i = 0; i < count; i++) faults.push(fault);
    },
    dropped: [],
    unauthorized: 0,
    peakConnections: 0,
    calls: [],
    batches: [],
    sendTimes: [],
    async stop() {
      for (const ws of relayed) ws.terminate();
      wsServer.close();
      for (const res of hanging) res.destroy();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await anvil.destroy();
    },
  };

  /** What Besu's transaction pool says of a raw transaction; undefined: accept it. */
  async function validate(raw: string): Promise<RpcError | undefined> {
    const tx = Transaction.from(raw);
    const from = tx.from!.toLowerCase();
    if (known.has(tx.hash!)) {
      const pending = await upstream('eth_getTransactionReceipt', [tx.hash]);
      if (pending.result === null) return BESU_ERRORS.knownTransaction;
    }
    if (allow && !allow.includes(from)) return BESU_ERRORS.senderNotAuthorized;
    const price = tx.type === 2 ? tx.maxFeePerGas! : tx.gasPrice!;
    if (opts.minGasPrice !== undefined && price < opts.minGasPrice) return BESU_ERRORS.gasPriceTooLow;
    if (tx.gasLimit < intrinsicGas(tx)) return BESU_ERRORS.intrinsicGas;
    const [latest, balance] = await Promise.all([
      upstream('eth_getTransactionCount', [tx.from, 'latest']),
      upstream('eth_getBalance', [tx.from, 'latest']),
    ]);
    const nonce = BigInt(latest.result as string);
    if (BigInt(tx.nonce) < nonce) return BESU_ERRORS.nonceTooLow;
    if (BigInt(tx.nonce) >= nonce + maxFuture) return BESU_ERRORS.nonceTooDistant;
    if (tx.gasLimit * price + tx.value > BigInt(balance.result as string)) return BESU_ERRORS.upfrontCost;
    return undefined;
  }

  /** Answers one request; undefined: answer nothing (a hang). */
  async function answer(req: RpcRequest, res: ServerResponse): Promise<object | undefined> {
    const id = req.id ?? null;
    const method = req.method ?? '';
    const params = req.params ?? [];
    front.calls.push(method);
    const error = (e: RpcError) => ({ jsonrpc: '2.0', id, error: e });
    const result = (r: unknown) => ({ jsonrpc: '2.0', id, result: r });

    if (method === 'qbft_getValidatorsByBlockNumber') {
      if (opts.validators === 'proposer') {
        const block = await upstream('eth_getBlockByNumber', [params[0] ?? 'latest', false]);
        const miner = (block.result as { miner?: string } | null)?.miner;
        return miner ? result([miner]) : error({ code: -32000, message: 'Block not found' });
      }
      return opts.validators ? result(opts.validators) : error(BESU_ERRORS.methodNotFound);
    }
    if (method === 'istanbul_getValidators' && opts.istanbulValidators) return result(opts.istanbulValidators);
    if (method.startsWith('istanbul_') || method.startsWith('clique_')) return error(BESU_ERRORS.methodNotFound);
    if (method === 'eth_sendRawTransaction') {
      front.sendTimes.push(Date.now());
      const raw = String(params[0]);
      const fault = faults.shift();
      if (fault?.kind === 'hang') {
        hanging.add(res);
        return undefined;
      }
      if (fault?.kind === 'reset') {
        res.socket?.destroy();
        return undefined;
      }
      if (fault?.kind === 'refuse') return error({ code: fault.code, message: fault.message });
      const refusal = await validate(raw);
      if (refusal) return error(refusal);
      const hash = Transaction.from(raw).hash!;
      if (fault?.kind === 'drop') {
        front.dropped.push(raw);
        return result(hash);
      }
      known.add(hash);
      const forwarded = await upstream(method, params);
      return forwarded.error ? error(forwarded.error) : result(forwarded.result);
    }
    const forwarded = await upstream(method, params);
    if (forwarded.error) return error(forwarded.error);
    if (method === 'eth_getTransactionReceipt' && opts.revertReasons && forwarded.result) {
      const receipt = forwarded.result as Record<string, unknown>;
      if (receipt.status === '0x0') {
        const tx = (await upstream('eth_getTransactionByHash', [receipt.transactionHash])).result as Record<
          string,
          unknown
        >;
        const replay = await upstream('eth_call', [
          { from: tx.from, to: tx.to, data: tx.input, value: tx.value, gas: tx.gas },
          receipt.blockNumber,
        ]);
        // anvil puts the revert data in error.data; Besu writes it into the receipt as hex.
        if (typeof replay.error?.data === 'string') receipt.revertReason = replay.error.data;
      }
    }
    return result(forwarded.result);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: RpcRequest | RpcRequest[];
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as RpcRequest | RpcRequest[];
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
      return;
    }
    if (opts.token && req.headers.authorization !== `Bearer ${opts.token}`) {
      front.unauthorized++;
      const id = Array.isArray(body) ? null : (body.id ?? null);
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id, error: BESU_ERRORS.unauthorized }));
      return;
    }
    if (Array.isArray(body)) {
      front.batches.push(body.length);
      res.writeHead(200, { 'content-type': 'application/json' });
      if (body.length > (opts.maxBatchSize ?? 1024)) {
        res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: BESU_ERRORS.batchTooLarge }));
        return;
      }
      const answers: object[] = [];
      for (const r of body) {
        const one = await answer(r, res);
        if (one) answers.push(one);
      }
      res.end(JSON.stringify(answers));
      return;
    }
    const one = await answer(body, res);
    if (one === undefined) return;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(one));
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  const anvilWs = opts.upstream.replace(/^http/, 'ws');
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const refuse = (status: string) => {
      socket.end(`HTTP/1.1 ${status}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`);
    };
    if (opts.token && req.headers.authorization !== `Bearer ${opts.token}`) {
      front.wsUnauthorized++;
      refuse('401 Unauthorized');
      return;
    }
    if (refuseSockets) {
      refuse('503 Service Unavailable');
      return;
    }
    wsServer.handleUpgrade(req, socket, head, (client) => {
      front.wsSessions++;
      const node = new WebSocket(anvilWs);
      const queued: string[] = [];
      relayed.add(client);
      relayed.add(node);
      const end = () => {
        relayed.delete(client);
        relayed.delete(node);
        client.terminate();
        node.terminate();
      };
      node.on('open', () => {
        for (const m of queued.splice(0)) node.send(m);
      });
      node.on('message', (data, isBinary) => client.send(data, { binary: isBinary }));
      client.on('message', (data) => {
        const text = data.toString();
        if (node.readyState === WebSocket.OPEN) node.send(text);
        else queued.push(text);
      });
      node.on('close', end);
      node.on('error', end);
      client.on('close', end);
      client.on('error', end);
    });
  });
  server.maxConnections = opts.maxConnections ?? 80;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    front.peakConnections = Math.max(front.peakConnections, sockets.size);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  front.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  front.wsUrl = front.url.replace(/^http/, 'ws');
  return front;
}

export interface BesuChain {
  front: BesuFront;
  anvilUrl: string;
  stop(): Promise<void>;
}

/** A real anvil for `chainId` with the Besu front before it. */
export async function startBesuChain(
  chainId: number,
  opts: Omit<BesuFrontOptions, 'upstream'> & { freeGas?: boolean; blockTime?: number } = {},
): Promise<BesuChain> {
  const node = await startLocalNode({
    chainId,
    blockTime: opts.blockTime ?? 1,
    logger: createLogger('silent'),
    freeGas: opts.freeGas,
  });
  const front = await startBesuFront({ ...opts, upstream: node.url });
  return {
    front,
    anvilUrl: node.url,
    async stop() {
      await front.stop();
      await node.stop();
    },
  };
}
