import {
  FetchRequest,
  JsonRpcProvider,
  makeError,
  type CallExceptionTransaction,
  Network as EthersNetwork,
  type JsonRpcError,
  type JsonRpcPayload,
  type JsonRpcResult,
} from 'ethers';
import { CHAIN_IDS, NETWORKS, type Network } from '../kernel/network';
import { AppError, isAppError } from '../kernel/errors/app-error';
import type { Logger } from '../kernel/logger';
import { checkDataSize, MAX_QUOTED_BYTES, quoted } from './abi/bounded-decoder';
import { CallBatcher } from './call-batcher';
import { FailoverTransport, WrongChainIdError } from './failover-transport';
import { HeadSubscription, type HeadListener } from './head-subscription';
import type { JsonRpcAnswer } from './rpc-transport';
import {
  DEFAULT_FEE_POLICY,
  DEFAULT_MAX_BATCH,
  DEFAULT_MAX_CONNECTIONS,
  type FeePolicy,
  type NetworkOptions,
} from '../kernel/network-settings';

export interface NetworkHealth {
  network: Network;
  chainId: number;
  /** Host and port of each node, comma-separated (the URLs may carry credentials and are never shown). */
  url: string;
  healthy: boolean;
  latencyMs: number | null;
  /** Short reason, free of URLs and hosts. */
  error?: string;
  blockNumber?: number;
}

export interface RetryOptions {
  /** Total tries, the first included. Default 3. */
  attempts?: number;
  /** Limit for each try. Default 5000 ms. */
  timeoutMs?: number;
}

/** How long connect() waits for a node's chain id before treating the node as down for now. */
const CONNECT_TIMEOUT_MS = 3_000;
const HEALTH_TIMEOUT_MS = 2_000;
const DEFAULT_ATTEMPTS = 3;
const DEFAULT_ATTEMPT_TIMEOUT_MS = 5_000;
const BACKOFF_BASE_MS = 100;
/** How long a broadcast waits for the node's answer before its outcome counts as unknown. */
const SEND_TIMEOUT_MS = 10_000;
/** Transport limit for any single request; ethers' default of 5 minutes would pin sockets to a hung node. */
const REQUEST_TIMEOUT_MS = 30_000;
/**
 * How often a provider with listeners (a wait for a receipt) asks for the block number. ethers'
 * default is 4 s; QBFT blocks come every second or so, and a receipt should be seen well within
 * one block, not up to a whole block late. Only polled while someone waits.
 */
const POLLING_INTERVAL_MS = 250;

const TRANSIENT_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

class TimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`timeout after ${timeoutMs} ms`);
    this.name = 'TimeoutError';
  }
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(timeoutMs)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The fields of Node socket errors and ethers errors that tell what went wrong. */
interface ErrorShape {
  code?: unknown;
  shortMessage?: unknown;
  errors?: unknown;
  info?: { responseStatus?: unknown };
}

function errorShape(err: unknown): ErrorShape {
  return typeof err === 'object' && err !== null ? (err as ErrorShape) : {};
}

/** Socket error code of a Node error, or of the first error inside an AggregateError (IPv4+IPv6 attempts). */
function socketCode(err: unknown): string | undefined {
  const shape = errorShape(err);
  if (typeof shape.code === 'string' && shape.code.startsWith('E')) return shape.code;
  if (Array.isArray(shape.errors) && shape.errors.length > 0) return socketCode(shape.errors[0]);
  if (typeof shape.code === 'string' && shape.code.startsWith('UND_ERR')) return shape.code;
  return undefined;
}

/** HTTP status of an ethers SERVER_ERROR, e.g. 503; undefined when the server sent no status. */
function httpStatus(err: unknown): number | undefined {
  const status = errorShape(err).info?.responseStatus;
  if (typeof status !== 'string') return undefined;
  const code = Number.parseInt(status, 10);
  return Number.isFinite(code) ? code : undefined;
}

const isServerError = (err: unknown) => errorShape(err).code === 'SERVER_ERROR';

/** Whether trying the same read again may succeed: socket failures, timeouts, 5xx and 429 answers. */
function isTransient(err: unknown): boolean {
  if (err instanceof TimeoutError) return true;
  const code = socketCode(err);
  if (code !== undefined && TRANSIENT_SOCKET_CODES.has(code)) return true;
  const ethersCode = errorShape(err).code;
  if (ethersCode === 'TIMEOUT' || ethersCode === 'NETWORK_ERROR') return true;
  if (isServerError(err)) {
    const status = httpStatus(err);
    return status === undefined || status >= 500 || status === 429;
  }
  return false;
}

const SOCKET_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ECONNABORTED: 'connection aborted',
  ETIMEDOUT: 'connection timed out',
  EPIPE: 'connection closed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  UND_ERR_SOCKET: 'connection closed',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
};

/**
 * A short reason safe to show to clients. Messages of Node and ethers errors are not used as they
 * are: they carry the host, and ethers' SERVER_ERROR even the full request URL.
 */
function describeFailure(err: unknown): string {
  if (err instanceof TimeoutError) return err.message;
  if (isAppError(err)) return err.message;
  const code = socketCode(err);
  if (code !== undefined) return SOCKET_REASONS[code] ?? `network error ${code}`;
  const shape = errorShape(err);
  if (shape.code === 'TIMEOUT') return 'timeout';
  if (isServerError(err)) {
    const status = errorShape(err).info?.responseStatus;
    return typeof status === 'string' ? `HTTP ${status}` : 'bad response from node';
  }
  if (typeof shape.shortMessage === 'string') return shape.shortMessage;
  return 'unexpected error';
}

/** Host and port of an RPC URL: the only part of it that may be logged. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(invalid URL)';
  }
}

/**
 * UPSTREAM_RPC_ERROR when `err` is a node that did not answer (refused, reset, timed out, 5xx) on a
 * call made straight on a provider; undefined for anything else (a revert, a node's refusal). Raw
 * socket errors must not reach the error map, where they would pass for the database's.
 */
export function nodeUnreachableError(network: Network, err: unknown): AppError | undefined {
  if (isAppError(err) || !isTransient(err)) return undefined;
  return new AppError('UPSTREAM_RPC_ERROR', `The ${network} node did not answer (${describeFailure(err)})`, {
    network,
  });
}

/**
 * A JsonRpcProvider that sends nothing to a node before that node has reported the expected chain
 * id, so a node that was down at start is checked on first contact, whichever code path makes it.
 * With several nodes, requests fail over between them (FailoverTransport).
 */
class ChainCheckedProvider extends JsonRpcProvider {
  private refusal: AppError | null = null;
  /** Reads of one turn, sent to the node together (`read`). */
  private readonly reads: CallBatcher;

  constructor(
    private readonly transport: FailoverTransport,
    network: EthersNetwork,
    /** Records the refusal (every node on the wrong chain) and returns the error to throw from now on. */
    private readonly onWrongChainId: (actualChainId: number) => AppError,
    batching: { maxBatch: number; onRefused: (batchSize: number, error: { code?: number; message?: string }) => void },
  ) {
    // The URL is never used by ethers: every request goes through `transport` (see _send).
    super(new FetchRequest('http://127.0.0.1/'), network, {
      staticNetwork: network,
      // The default 250 ms cache would hand out the same pending nonce to two quick transactions.
      cacheTimeout: -1,
      batchStallTime: 0,
      // ethers' own batching off: Besu answers the entries of a batch one after another, so what
      // ethers sends (reads and sends alike) goes one request per call over several keep-alive
      // sockets. The gateway's reads are batched by `read` (CallBatcher), and only those one turn made.
      batchMaxCount: 1,
      pollingInterval: POLLING_INTERVAL_MS,
    });
    this.reads = new CallBatcher((payload) => this.sendChecked(payload), batching.maxBatch, batching.onRefused);
  }

  /** A wrong chain id on every node refuses the network for good. */
  private refuseIfAllWrong(err: unknown): unknown {
    if (err instanceof WrongChainIdError && this.transport.allWrongChain() !== undefined) {
      this.refusal ??= this.onWrongChainId(err.actualChainId);
      return this.refusal;
    }
    return err;
  }

  /** Resolves once a node has reported the expected chain id; rejects for good when none does. */
  async verifyChainId(): Promise<void> {
    if (this.refusal) throw this.refusal;
    try {
      await this.transport.verify();
    } catch (err) {
      throw this.refuseIfAllWrong(err);
    }
  }

  private async sendChecked(payload: JsonRpcPayload | JsonRpcPayload[]) {
    if (this.refusal) throw this.refusal;
    try {
      return await this.transport.send(payload);
    } catch (err) {
      throw this.refuseIfAllWrong(err);
    }
  }

  /**
   * The node's error as ethers' error, bounded first (docs/api.md "Hostile chain data"): revert data
   * over 256 KiB is 422 RESULT_TOO_LARGE, and a revert of more than 4 KiB becomes CALL_EXCEPTION with
   * its data here, undecoded: ethers would copy and decode the reason on the event loop (150 ms for
   * 192 KiB, most of a second for 1 MB), the bounded decoder does it later. Messages are cut to 4 KiB.
   */
  override getRpcError(payload: JsonRpcPayload, answer: JsonRpcError): Error {
    const error = answer.error as { message?: unknown; data?: unknown } | undefined;
    const data = error?.data;
    if (typeof data === 'string') checkDataSize(data);
    if (
      typeof data === 'string' &&
      data.length > 2 + 2 * MAX_QUOTED_BYTES &&
      (payload.method === 'eth_call' || payload.method === 'eth_estimateGas')
    ) {
      const params = payload.params as unknown[] | undefined;
      return makeError('execution reverted', 'CALL_EXCEPTION', {
        action: payload.method === 'eth_call' ? 'call' : 'estimateGas',
        data,
        reason: null,
        transaction: (params?.[0] ?? {}) as CallExceptionTransaction,
        invocation: null,
        revert: null,
      });
    }
    if (typeof error?.message === 'string' && error.message.length > 1024) {
      return super.getRpcError(payload, { ...answer, error: { ...answer.error, message: quoted(error.message) } });
    }
    return super.getRpcError(payload, answer);
  }

  override async _send(payload: JsonRpcPayload | JsonRpcPayload[]): Promise<JsonRpcResult[]> {
    // ethers reads error objects out of this list too, although its type names only results.
    return (await this.sendChecked(payload)) as JsonRpcResult[];
  }

  /**
   * One JSON-RPC request straight on the transport, past ethers' request queue and its drain timer;
   * a JSON-RPC error is turned into ethers' own error for it (a revert becomes CALL_EXCEPTION with
   * its data, a refused transaction keeps the node's message).
   */
  async rpc(method: string, params: unknown[]): Promise<unknown> {
    const payload: JsonRpcPayload = { jsonrpc: '2.0', id: 1, method, params };
    const [answer] = await this.sendChecked(payload);
    return this.resultOf(payload, answer);
  }

  /** As `rpc`, for a read the node may answer in a batch with the other reads of this turn and `group` (CallBatcher). */
  async read(method: string, params: unknown[], group?: string): Promise<unknown> {
    const answer = await this.reads.call(method, params, group);
    return this.resultOf({ jsonrpc: '2.0', id: 1, method, params }, answer);
  }

  /** The node's own answer to one request, its error object included (the JSON-RPC door relays it). */
  async exchange(method: string, params: unknown[], group?: string): Promise<JsonRpcAnswer> {
    const answer =
      group === undefined
        ? (await this.sendChecked({ jsonrpc: '2.0', id: 1, method, params }))[0]
        : await this.reads.call(method, params, group);
    return answer ?? { id: 1, error: { code: -32603, message: 'the node sent no answer' } };
  }

  private resultOf(payload: JsonRpcPayload, answer: JsonRpcAnswer | undefined): unknown {
    if (answer && 'result' in answer) return answer.result;
    throw this.getRpcError(payload, answer && 'error' in answer ? answer : { id: 1, error: { code: -32603 } });
  }

  override destroy(): void {
    super.destroy();
    this.transport.close();
  }
}

interface NetworkEntry {
  network: Network;
  chainId: number;
  /** Host and port of each node, in order (never the URLs: they may carry credentials). */
  hosts: string[];
  fees: FeePolicy;
  /** The nodes' WebSockets (`*_WS_URL`) and the headers they get; no URLs: heads are polled. */
  wsUrls: string[];
  headers: Record<string, string>;
  provider?: ChainCheckedProvider;
  transport?: FailoverTransport;
  /** Why the network is refused (not configured, wrong chain id...); safe to show to clients. */
  refusal?: string;
}

/** The one place that builds ethers providers: one per network, checked against CHAIN_IDS. */
export class ChainRegistry {
  private readonly entries = new Map<Network, NetworkEntry>();
  private readonly subscriptions = new Set<HeadSubscription>();
  private destroyed = false;

  private constructor(private readonly logger: Logger) {}

  /**
   * Creates a provider per configured network and asks each node for its chain id. A node with the
   * wrong chain id is refused; a node that is down is kept and checked when it first answers.
   */
  static async connect(
    settings: Partial<Record<Network, string | Partial<NetworkOptions> | undefined>>,
    logger: Logger,
  ): Promise<ChainRegistry> {
    const registry = new ChainRegistry(logger.child({ component: 'chain-registry' }));
    await Promise.all(
      NETWORKS.map((network) => {
        const given = settings[network];
        const options: Partial<NetworkOptions> =
          typeof given === 'string'
            ? {
                urls: given
                  .split(',')
                  .map((u) => u.trim())
                  .filter(Boolean),
              }
            : (given ?? {});
        return registry.add(network, options);
      }),
    );
    return registry;
  }

  private async add(network: Network, options: Partial<NetworkOptions>): Promise<void> {
    const chainId = CHAIN_IDS[network];
    const urls = options.urls ?? [];
    const entry: NetworkEntry = {
      network,
      chainId,
      hosts: urls.map(hostOf),
      fees: options.fees ?? DEFAULT_FEE_POLICY,
      wsUrls: options.wsUrls ?? [],
      headers: options.headers ?? {},
    };
    this.entries.set(network, entry);
    if (urls.length === 0) {
      entry.refusal = 'no RPC URL configured';
      this.logger.warn({ network }, 'No RPC URL configured; the network is unavailable');
      return;
    }
    for (const url of urls) {
      const protocol = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
      if (protocol !== 'http' && protocol !== 'https') {
        entry.refusal = 'unsupported RPC URL (only http and https are supported)';
        this.logger.error({ network, protocol }, 'RPC URL must use http or https; the network is unavailable');
        return;
      }
    }
    const host = entry.hosts.join(',');
    const transport = new FailoverTransport(
      urls,
      REQUEST_TIMEOUT_MS,
      { headers: options.headers, maxConnections: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS },
      BigInt(chainId),
      (nodeHost, actualChainId) =>
        this.logger.error(
          { network, host: nodeHost, expectedChainId: chainId, actualChainId },
          'RPC node reports the wrong chain id; it is not used',
        ),
    );
    entry.transport = transport;
    const maxBatch = options.maxBatch ?? DEFAULT_MAX_BATCH;
    entry.provider = new ChainCheckedProvider(
      transport,
      new EthersNetwork(network, chainId),
      (actualChainId) => {
        entry.refusal = `chain id mismatch: expected ${chainId}, node reports ${actualChainId}`;
        this.logger.error(
          { network, host, expectedChainId: chainId, actualChainId },
          'RPC node reports the wrong chain id; the network is refused',
        );
        return new AppError('NETWORK_UNAVAILABLE', `The ${network} network is not available`, { network });
      },
      {
        maxBatch,
        onRefused: (batchSize, error) =>
          this.logger.warn(
            { network, host, batchSize, code: error.code, reason: error.message },
            `RPC node refused a batch of ${batchSize} reads; reads are sent one by one from now on (set ${network.toUpperCase()}_RPC_MAX_BATCH=1, or raise the node's batch limit)`,
          ),
      },
    );
    try {
      await withTimeout(entry.provider.verifyChainId(), CONNECT_TIMEOUT_MS);
      this.logger.info({ network, host, chainId }, 'Connected to RPC node');
    } catch (err) {
      if (entry.refusal === undefined) {
        this.logger.warn(
          { network, host, reason: describeFailure(err) },
          'RPC node not reachable; will check its chain id once it answers',
        );
      }
    }
  }

  /** The provider of a network; throws NETWORK_UNAVAILABLE when it is not configured or refused. */
  provider(network: Network): JsonRpcProvider {
    const entry = this.entries.get(network);
    if (this.destroyed || entry?.provider === undefined || entry.refusal !== undefined) {
      throw new AppError('NETWORK_UNAVAILABLE', `The ${network} network is not available`, { network });
    }
    return entry.provider;
  }

  /** Tells `observer` of every exchange with every node (its network, host, duration and failure). */
  observeNodes(observer: (network: Network, host: string, seconds: number, failed: boolean) => void): void {
    for (const entry of this.entries.values()) {
      if (entry.transport) {
        entry.transport.observer = (host, seconds, failed) => observer(entry.network, host, seconds, failed);
      }
    }
  }

  /** Whether provider() returns a provider: configured, not refused. The node may still be down; see health(). */
  isAvailable(network: Network): boolean {
    const entry = this.entries.get(network);
    return !this.destroyed && entry?.provider !== undefined && entry.refusal === undefined;
  }

  /** The network's fee policy (FEE_MODE, GAS_PRICE_WEI, MAX_FEE_PER_GAS_WEI). */
  feePolicy(network: Network): FeePolicy {
    return this.entries.get(network)?.fees ?? DEFAULT_FEE_POLICY;
  }

  /** Asks the node for its block number within 2 s and measures how long that took. */
  async health(network: Network): Promise<NetworkHealth> {
    const entry = this.entries.get(network);
    const base = { network, chainId: CHAIN_IDS[network], url: entry?.hosts.join(',') ?? '' };
    if (!this.isAvailable(network)) {
      return { ...base, healthy: false, latencyMs: null, error: entry?.refusal ?? 'not available' };
    }
    const provider = this.provider(network);
    const started = performance.now();
    try {
      const blockNumberHex: unknown = await withTimeout(provider.send('eth_blockNumber', []), HEALTH_TIMEOUT_MS);
      const latencyMs = Math.round(performance.now() - started);
      return { ...base, healthy: true, latencyMs, blockNumber: Number(BigInt(String(blockNumberHex))) };
    } catch (err) {
      return { ...base, healthy: false, latencyMs: null, error: entry?.refusal ?? describeFailure(err) };
    }
  }

  /**
   * Runs a READ against a network, retrying transient failures (refused connections, timeouts, 5xx)
   * with a short backoff; then throws UPSTREAM_RPC_ERROR. Never use it for sending transactions:
   * a retried send may be applied twice.
   */
  async withRetry<T>(network: Network, fn: (provider: JsonRpcProvider) => Promise<T>, opts?: RetryOptions): Promise<T> {
    const attempts = Math.max(1, opts?.attempts ?? DEFAULT_ATTEMPTS);
    const timeoutMs = opts?.timeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
    const provider = this.provider(network);
    const host = () => this.entries.get(network)?.hosts.join(',') ?? '';
    let lastError: unknown;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        return await withTimeout(fn(provider), timeoutMs);
      } catch (err) {
        if (isAppError(err)) throw err;
        if (!isTransient(err)) {
          // A 4xx answer (bad credentials, wrong path) will not get better; its ethers message holds the URL.
          if (isServerError(err))
            throw this.upstreamError(network, `The ${network} node refused the request`, err, attempt);
          throw err;
        }
        lastError = err;
        this.logger.debug(
          { network, host: host(), attempt, attempts, reason: describeFailure(err) },
          'RPC read failed',
        );
        if (attempt < attempts) await sleep(BACKOFF_BASE_MS * 2 ** (attempt - 1) + Math.random() * BACKOFF_BASE_MS);
      }
    }
    this.logger.warn(
      { network, host: host(), attempts, reason: describeFailure(lastError) },
      'RPC read failed after retries',
    );
    throw this.upstreamError(network, `The ${network} node did not answer`, lastError, attempts);
  }

  private upstreamError(network: Network, what: string, err: unknown, attempts: number): AppError {
    return new AppError('UPSTREAM_RPC_ERROR', `${what} (${describeFailure(err)})`, { network, attempts });
  }

  /**
   * eth_call at the latest block, or at `block` when given, as a bare JSON-RPC request: the
   * gateway's hot path, without the provider's request normalisation (address resolution and
   * checksums it does not need). Calls of the same `group` made in one turn may go to the node in
   * one batch (`*_RPC_MAX_BATCH`); the gateway groups by the calling developer.
   */
  call(
    network: Network,
    tx: { to: string | null; data: string; from?: string },
    block?: number,
    group?: string,
  ): Promise<string> {
    const tag = block === undefined ? 'latest' : `0x${block.toString(16)}`;
    return this.withRetry(network, async (p) => {
      const result = await (p as ChainCheckedProvider).read('eth_call', [tx, tag], group);
      if (typeof result !== 'string')
        throw new AppError('UPSTREAM_RPC_ERROR', `The ${network} node answered eth_call without data`);
      return result;
    });
  }

  /**
   * eth_sendRawTransaction, once (never retried: see withRetry), returning the node's hash. ethers'
   * broadcastTransaction would also fetch the block number and recover the sender from the
   * signature, which costs more than the send; the sender knows both already.
   */
  async broadcast(network: Network, rawTransaction: string): Promise<string> {
    const provider = this.provider(network) as ChainCheckedProvider;
    // A node that does not answer must not hold the wallet's nonce lock for the whole request
    // timeout: after this the outcome is unknown and the transaction is followed by its hash.
    return String(await withTimeout(provider.rpc('eth_sendRawTransaction', [rawTransaction]), SEND_TIMEOUT_MS));
  }

  /**
   * One request relayed to the network's nodes as it is, answered with the node's own result or
   * error object (code, message, data), for the JSON-RPC door (docs/api.md, "JSON-RPC door"). Reads
   * of one `group` made in one turn may share a batch; sends are never batched nor retried. A node
   * that does not answer at all is UPSTREAM_RPC_ERROR.
   */
  async relay(network: Network, method: string, params: unknown[], group?: string): Promise<JsonRpcAnswer> {
    const provider = this.provider(network) as ChainCheckedProvider;
    if (group === undefined) {
      try {
        return await withTimeout(provider.exchange(method, params), SEND_TIMEOUT_MS);
      } catch (err) {
        if (isAppError(err)) throw err;
        throw this.upstreamError(network, `The ${network} node did not answer`, err, 1);
      }
    }
    return this.withRetry(network, () => provider.exchange(method, params, group));
  }

  /**
   * Follows the network's new heads over its nodes' WebSockets (`*_WS_URL`, with the RPC headers),
   * reconnecting with backoff; null when the network has none (or is unavailable): poll it then.
   * The caller closes it; destroy() closes those still open.
   */
  followHeads(network: Network, listener: HeadListener): HeadSubscription | null {
    const entry = this.entries.get(network);
    if (!this.isAvailable(network) || entry === undefined || entry.wsUrls.length === 0) return null;
    const subscription: HeadSubscription = new HeadSubscription(
      {
        urls: entry.wsUrls,
        headers: entry.headers,
        logger: this.logger.child({ network }),
        onClose: () => this.subscriptions.delete(subscription),
      },
      listener,
    );
    this.subscriptions.add(subscription);
    return subscription;
  }

  /** Stops all providers and head subscriptions; every later provider() call throws NETWORK_UNAVAILABLE. */
  destroy(): void {
    this.destroyed = true;
    for (const subscription of [...this.subscriptions]) subscription.close();
    for (const entry of this.entries.values()) entry.provider?.destroy();
  }
}
