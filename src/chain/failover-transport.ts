import type { JsonRpcPayload } from 'ethers';
import { RpcTransport, type JsonRpcAnswer, type RpcTransportOptions } from './rpc-transport';

/** How long an endpoint that failed is passed over before it is tried again (its health check). */
const COOLDOWN_MS = 5_000;

/** Failures that prove a request never reached the node: safe to send anything elsewhere, a transaction too. */
const NOT_DELIVERED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);
/** Failures after which a read may be asked elsewhere (a transaction may have arrived: it is not re-sent). */
const READ_RETRYABLE = new Set([
  ...NOT_DELIVERED,
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

interface Shape {
  code?: unknown;
  errors?: unknown;
  info?: { responseStatus?: unknown };
}

function codeOf(err: unknown): string | undefined {
  const shape = (typeof err === 'object' && err !== null ? err : {}) as Shape;
  if (typeof shape.code === 'string') return shape.code;
  if (Array.isArray(shape.errors) && shape.errors.length > 0) return codeOf(shape.errors[0]);
  return undefined;
}

function statusOf(err: unknown): number | undefined {
  const status = ((typeof err === 'object' && err !== null ? err : {}) as Shape).info?.responseStatus;
  return typeof status === 'string' ? Number.parseInt(status, 10) : undefined;
}

/** Whether the payload may be sent to the next endpoint after `err` from this one. */
export function mayFailOver(err: unknown, payload: JsonRpcPayload | JsonRpcPayload[]): boolean {
  const sends = (Array.isArray(payload) ? payload : [payload]).some((p) => p.method === 'eth_sendRawTransaction');
  const code = codeOf(err);
  const status = statusOf(err);
  if (sends) return (code !== undefined && NOT_DELIVERED.has(code)) || status === 502 || status === 503;
  if (code !== undefined && READ_RETRYABLE.has(code)) return true;
  return status !== undefined && (status >= 500 || status === 429);
}

/** A node's wrong chain id: this endpoint is never used. */
export class WrongChainIdError extends Error {
  constructor(
    readonly host: string,
    readonly actualChainId: number,
  ) {
    super(`chain id ${actualChainId}`);
    this.name = 'WrongChainIdError';
  }
}

class Endpoint {
  readonly transport: RpcTransport;
  readonly host: string;
  wrongChainId?: number;
  downUntil = 0;
  private verified = false;
  private pendingCheck: Promise<void> | null = null;

  constructor(
    url: string,
    timeoutMs: number,
    opts: RpcTransportOptions,
    private readonly expectedChainId: bigint,
    /** Told of the chain-id exchange like of any other (a node down from the start fails here first). */
    private readonly observe: (host: string, seconds: number, failed: boolean) => void,
  ) {
    this.transport = new RpcTransport(url, timeoutMs, opts);
    this.host = new URL(url).host;
  }

  /** Resolves once the node has reported the expected chain id; a wrong one is final. */
  verify(): Promise<void> {
    if (this.wrongChainId !== undefined) return Promise.reject(new WrongChainIdError(this.host, this.wrongChainId));
    if (this.verified) return Promise.resolve();
    this.pendingCheck ??= this.askChainId().finally(() => (this.pendingCheck = null));
    return this.pendingCheck;
  }

  private async askChainId(): Promise<void> {
    const started = performance.now();
    const answer = await this.transport.send({ jsonrpc: '2.0', id: 0, method: 'eth_chainId', params: [] }).then(
      ([first]) => first,
      (err: unknown) => {
        this.observe(this.host, (performance.now() - started) / 1000, true);
        throw err;
      },
    );
    const usable = answer !== undefined && 'result' in answer && typeof answer.result === 'string';
    this.observe(this.host, (performance.now() - started) / 1000, !usable);
    if (!usable) throw new Error('the node did not report its chain id');
    const actual = BigInt(answer.result);
    if (actual !== this.expectedChainId) {
      this.wrongChainId = Number(actual);
      throw new WrongChainIdError(this.host, this.wrongChainId);
    }
    this.verified = true;
  }
}

/**
 * The nodes of one network, used in the configured order: a node that fails is passed over for a
 * few seconds (then tried again), a node with the wrong chain id for good. Each node's chain id is
 * checked before its first use.
 */
/** Told of every exchange with a node: its host, how long it took and whether it failed (no answer, HTTP error). */
export type NodeExchangeObserver = (host: string, seconds: number, failed: boolean) => void;

export class FailoverTransport {
  private readonly endpoints: Endpoint[];
  /** Set by the registry's `observeNodes` (the /metrics per-node series, docs/api.md "Operations"). */
  observer: NodeExchangeObserver | null = null;

  constructor(
    urls: string[],
    timeoutMs: number,
    opts: RpcTransportOptions,
    expectedChainId: bigint,
    /** Told once per node found on the wrong chain. */
    private readonly onWrongChainId: (host: string, actualChainId: number) => void,
  ) {
    this.endpoints = urls.map(
      (url) =>
        new Endpoint(url, timeoutMs, opts, expectedChainId, (host, seconds, failed) =>
          this.observer?.(host, seconds, failed),
        ),
    );
  }

  /** Hosts of the nodes (never the URLs: they may carry credentials). */
  get hosts(): string[] {
    return this.endpoints.map((e) => e.host);
  }

  /** Whether every node reported a wrong chain id; then the chain id of the first. */
  allWrongChain(): number | undefined {
    return this.endpoints.every((e) => e.wrongChainId !== undefined) ? this.endpoints[0]?.wrongChainId : undefined;
  }

  /** Checks the chain id of every node; resolves when at least one is verified. */
  async verify(): Promise<void> {
    const results = await Promise.allSettled(this.endpoints.map((e) => this.check(e)));
    if (results.some((r) => r.status === 'fulfilled')) return;
    throw (results[0] as PromiseRejectedResult).reason;
  }

  private async check(endpoint: Endpoint): Promise<void> {
    const known = endpoint.wrongChainId !== undefined;
    try {
      await endpoint.verify();
    } catch (err) {
      if (err instanceof WrongChainIdError && !known) this.onWrongChainId(err.host, err.actualChainId);
      throw err;
    }
  }

  /** Sends to the first usable node; moves on to the next when the failure allows it. */
  async send(payload: JsonRpcPayload | JsonRpcPayload[]): Promise<JsonRpcAnswer[]> {
    const now = Date.now();
    const usable = this.endpoints.filter((e) => e.wrongChainId === undefined);
    // Nodes in their cooldown go last rather than not at all: better a slow answer than none.
    const ordered = [...usable.filter((e) => e.downUntil <= now), ...usable.filter((e) => e.downUntil > now)];
    if (ordered.length === 0) throw new WrongChainIdError(this.endpoints[0]!.host, this.endpoints[0]!.wrongChainId!);
    let lastError: unknown;
    for (const endpoint of ordered) {
      try {
        await this.check(endpoint);
      } catch (err) {
        lastError = err;
        if (!(err instanceof WrongChainIdError)) endpoint.downUntil = Date.now() + COOLDOWN_MS;
        if (
          err instanceof WrongChainIdError ||
          mayFailOver(err, { jsonrpc: '2.0', id: 0, method: 'eth_chainId', params: [] })
        ) {
          continue;
        }
        throw err;
      }
      const started = this.observer ? performance.now() : 0;
      try {
        const answers = await endpoint.transport.send(payload);
        endpoint.downUntil = 0;
        this.observer?.(endpoint.host, (performance.now() - started) / 1000, false);
        return answers;
      } catch (err) {
        this.observer?.(endpoint.host, (performance.now() - started) / 1000, true);
        lastError = err;
        if (!mayFailOver(err, payload)) throw err;
        endpoint.downUntil = Date.now() + COOLDOWN_MS;
      }
    }
    throw lastError;
  }

  close(): void {
    for (const endpoint of this.endpoints) endpoint.transport.close();
  }
}
