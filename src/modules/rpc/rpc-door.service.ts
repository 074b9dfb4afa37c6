import { randomBytes } from 'node:crypto';
import { Transaction } from 'ethers';
import { LRUCache } from 'lru-cache';
import type { ApiKeyPrincipal } from '../../auth/authority';
import type { Session } from '../../auth/session';
import type { ChainRegistry } from '../../chain/chain-registry';
import { CHAIN_IDS, type Network } from '../../kernel/network';
import { AppError, isAppError } from '../../kernel/errors/app-error';
import { jsonRpcCodeOf } from '../../kernel/errors/error-codes';
import { isAddressLike } from '../../kernel/address';
import type { RequestLimit } from '../../kernel/rate-limit';
import type { Logger } from '../../kernel/logger';
import type { UsageRecorder } from '../analytics';
import type { ContractService } from '../contracts';
import type { GatewayService } from '../gateway';
import { refundDoorSend, reserveDoorSend } from '../wallets';
import type { DataSource } from 'typeorm';
import {
  CONTRACT_BOUND_METHODS,
  MAINNET_SEND_REFUSED,
  MAX_BATCH,
  MAX_LOG_BLOCKS,
  MAX_LOGS,
  MAX_MESSAGE,
  READ_METHODS,
  SUBSCRIPTION_METHODS,
  WRITE_METHODS,
  methodNotFound,
} from './rpc-methods';
import type { LogFilter, RpcSubscriptions } from './rpc-subscriptions';
import type { TokensService } from '../tokens';
import { ALCHEMY_METHODS, getAssetTransfers, getTokenBalances } from './alchemy-methods';

/** Subscriptions one WebSocket connection of the door may hold (as GraphQL's, docs/api.md §"GraphQL specifics"). */
export const MAX_SUBSCRIPTIONS = 100;

/** A notification of a subscription, as geth sends it. */
export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: 'eth_subscription';
  params: { subscription: string; result: unknown };
}

/** One WebSocket connection of the door: its calls and its subscriptions. */
export interface RpcSocket {
  /** The answer to one message (a request or a batch). */
  message(body: unknown, parsed: boolean): Promise<JsonRpcResponse | JsonRpcResponse[]>;
  /** Ends every subscription of the connection. */
  close(): void;
}

/** What a connection is told: notifications, and the end of the connection (the key was revoked). */
export interface RpcSocketPeer {
  /** Sends a notification (a JsonRpcNotification's JSON); false when the connection cannot take more (it is then closed). */
  push(notification: string): boolean;
  end(code: number, reason: string): void;
}

/** A running subscription, as the connection ends it. */
interface Running {
  return(value?: undefined): Promise<unknown>;
}

/** The subscriptions of one connection. */
class SocketSubscriptions {
  readonly running = new Map<string, Running>();
}

/** Headers a live newHeads subscriber may have waiting behind its key's re-check (as the explorer's live feed bounds a subscriber). */
const MAX_WAITING_HEADERS = 256;

export type JsonRpcId = string | number | null;

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

export type JsonRpcResponse =
  { jsonrpc: '2.0'; id: JsonRpcId; result: unknown } | { jsonrpc: '2.0'; id: JsonRpcId; error: JsonRpcError };

/** What the HTTP face writes: always JSON, 200 unless the key or a limit refused the whole request. */
export interface RpcAnswer {
  status: number;
  body: JsonRpcResponse | JsonRpcResponse[];
  headers?: Record<string, string>;
}

interface Call {
  id: JsonRpcId;
  method: string;
  params: unknown[];
}

/** A WebSocket connection's part in answering its messages. */
interface SocketContext {
  subs: SocketSubscriptions;
  peer: RpcSocketPeer;
  closed: () => boolean;
}

/** The addresses a key restricted to contracts may aim at, on one network (empty: none). */
type Restriction = ReadonlySet<string> | null;

/** A node's error answer, carried through the read cache (never cached: only results are). */
class NodeAnswerError extends Error {
  constructor(readonly error: JsonRpcError) {
    super(error.message);
  }
}

const BLOCK_TAGS = new Set(['latest', 'pending', 'safe', 'finalized']);
const HEX_QUANTITY = /^0x[0-9a-fA-F]{1,16}$/;
const HEX_DATA = /^0x(?:[0-9a-fA-F]{2})*$/;

/** Addresses, and hashes per topic position, a `logs` subscription may name. */
const MAX_FILTER_ENTRIES = 100;
const TOPIC = /^0x[0-9a-fA-F]{64}$/;

/** Up to 4 positions, each null, a topic hash or a list of at most MAX_FILTER_ENTRIES hashes. */
function topicsWithinBounds(topics: unknown): boolean {
  if (topics === undefined || topics === null) return true;
  if (!Array.isArray(topics) || topics.length > 4) return false;
  return topics.every(
    (t) =>
      t === null ||
      (typeof t === 'string' && TOPIC.test(t)) ||
      (Array.isArray(t) && t.length <= MAX_FILTER_ENTRIES && t.every((h) => typeof h === 'string' && TOPIC.test(h))),
  );
}

const cut = (message: string) => (message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE)}…` : message);
const failure = (id: JsonRpcId, code: number, message: string, data?: unknown): JsonRpcResponse => ({
  jsonrpc: '2.0',
  id,
  error: { code, message, ...(data === undefined ? {} : { data }) },
});

/** A JSON-RPC id as sent, or null for anything JSON-RPC does not allow as an id. */
const idOf = (v: unknown): JsonRpcId =>
  typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) ? v : null;

/**
 * The JSON of a notification's result: a block's header or a log, the same object for every
 * subscriber that follows it, is serialised once.
 */
const resultTexts = new WeakMap<object, string>();
function resultJson(result: unknown): string {
  if (typeof result !== 'object' || result === null) return JSON.stringify(result) ?? 'null';
  let text = resultTexts.get(result);
  if (text === undefined) {
    text = JSON.stringify(result);
    resultTexts.set(result, text);
  }
  return text;
}

/** A call that passed the key's policy and was counted, but that the read cache does not hold. */
const COUNTED = Symbol('counted');

/** A request body that is one call (an object), not a batch. */
const isCall = (body: unknown): body is Record<string, unknown> =>
  typeof body === 'object' && body !== null && !Array.isArray(body);

/** The target and input of a plain eth_call (to and data only, at `latest` or no tag), read at the head. */
function plainRead(params: unknown[]): { to: string; data: string } | undefined {
  const [tx, tag] = params;
  if (params.length > 2 || (tag !== undefined && tag !== 'latest') || typeof tx !== 'object' || tx === null) {
    return undefined;
  }
  for (const k in tx) if (k !== 'to' && k !== 'data' && k !== 'input') return undefined;
  const { to, data, input } = tx as Record<string, unknown>;
  const payload = data ?? input;
  if (typeof to !== 'string' || !isAddressLike(to) || typeof payload !== 'string' || !HEX_DATA.test(payload)) {
    return undefined;
  }
  return { to, data: payload };
}

/**
 * The JSON-RPC door (docs/api.md, "JSON-RPC door"): standard Ethereum clients reach a network with
 * an API key. The key's scopes and contract restriction decide which calls go through; limits and
 * analytics count every call as the gateway's do; answers are the node's own, with reads at the
 * head the service knows answered from the gateway's read cache.
 */
export class RpcDoorService {
  /** Restricted keys' contract addresses by contract id (a deployed contract's address never changes). */
  private readonly contractAddresses = new LRUCache<string, { network: Network; address: string }>({ max: 10_000 });

  constructor(
    private readonly chains: ChainRegistry,
    private readonly contracts: ContractService,
    private readonly gateway: GatewayService,
    private readonly usage: UsageRecorder,
    /** DEVELOPER_RATE_LIMIT: the edge charged the request once; a batch's other calls are charged here. */
    private readonly developerLimit: RequestLimit,
    private readonly subscriptions: RpcSubscriptions,
    /** The token index, for Alchemy's token methods (docs/api.md, "JSON-RPC door"). */
    private readonly tokens: TokensService,
    private readonly logger: Logger,
    /** Where a key's raw transactions are counted against its spend caps. */
    private readonly ds: DataSource,
  ) {}

  /**
   * Opens a WebSocket connection of the door for the key `session` presents (its refusal, an
   * AppError, answers the upgrade). Each message is checked and answered as an HTTP request would
   * be, the key checked again; `eth_subscribe` starts a feed that `peer` is pushed.
   */
  async openSocket(network: Network, session: Session, peer: RpcSocketPeer): Promise<RpcSocket> {
    await session.apiKey();
    const subs = new SocketSubscriptions();
    let closed = false;
    const close = () => {
      closed = true;
      for (const feed of subs.running.values()) void feed.return(undefined);
      subs.running.clear();
    };
    return {
      message: async (body, parsed) => {
        const answer = await this.answerAll(network, body, parsed, session.renewed(), {
          subs,
          peer,
          closed: () => closed,
        });
        return answer.body;
      },
      close,
    };
  }

  /**
   * Answers one HTTP request's body (`parsed: false`: it was not JSON). A single call of a key
   * this instance has checked before is answered without waiting where nothing needs it (an
   * eth_call the read cache holds); the rest, batches and WebSocket messages, as `answerAll` does.
   */
  answer(network: Network, body: unknown, parsed: boolean, session: Session): RpcAnswer | Promise<RpcAnswer> {
    const principal = parsed && isCall(body) ? session.apiKeyNow() : undefined;
    if (!principal || principal.contractIds) return this.answerAll(network, body, parsed, session);
    const call = body as Record<string, unknown>;
    const charge = this.gateway.chargeKeyNow(principal.keyId, principal.policies.rateLimitPerSecond);
    if (!charge) return this.single(network, call, principal, session);
    return charge.then(
      () => this.single(network, call, principal, session),
      (err: unknown) => this.refusal(err),
    );
  }

  /** One call of a key that is not restricted to contracts, its request charged: its answer, at once when it can be. */
  private single(
    network: Network,
    call: Record<string, unknown>,
    principal: ApiKeyPrincipal,
    session: Session,
  ): RpcAnswer | Promise<RpcAnswer> {
    const started = performance.now();
    const hit = this.cachedCall(network, call, principal, session);
    if (hit === undefined)
      return this.one(network, call, principal, null, session).then((body) => ({ status: 200, body }));
    if (hit !== COUNTED) {
      const answer: JsonRpcResponse = { jsonrpc: '2.0', id: idOf(call.id), result: hit };
      this.recordCall(principal, 'eth_call', answer, started);
      return { status: 200, body: answer };
    }
    // Allowed and counted, not in the cache: the node is asked as any call's answer would be.
    return this.one(network, call, principal, null, session, undefined, true).then((body) => ({ status: 200, body }));
  }

  /**
   * A plain eth_call at the head (`call`'s checks, in their order) of a key without a daily quota:
   * its result when the read cache holds it; COUNTED when it passed the key's policy and was
   * counted but must be asked; undefined, nothing counted, for any other call.
   */
  private cachedCall(
    network: Network,
    call: Record<string, unknown>,
    principal: ApiKeyPrincipal,
    session: Session,
  ): string | typeof COUNTED | undefined {
    if (call.jsonrpc !== '2.0' || call.method !== 'eth_call' || !Array.isArray(call.params)) return undefined;
    const read = plainRead(call.params);
    if (!read || !principal.scopes.includes('read') || !session.keyCallNow(principal, ['eth_call'])) return undefined;
    return this.gateway.readAtHeadNow(network, read.to.toLowerCase(), read.data.toLowerCase()) ?? COUNTED;
  }

  /** Answers one request's body, a batch or a WebSocket message included, call by call. */
  async answerAll(
    network: Network,
    body: unknown,
    parsed: boolean,
    session: Session,
    socket?: SocketContext,
  ): Promise<RpcAnswer> {
    let principal: ApiKeyPrincipal;
    try {
      principal = await session.apiKey();
    } catch (err) {
      return this.refusal(err);
    }
    if (!parsed) return { status: 200, body: failure(null, -32700, 'parse error') };
    const batch = Array.isArray(body);
    const items: unknown[] = batch ? body : [body];
    if (batch && items.length === 0) return { status: 200, body: failure(null, -32600, 'empty batch') };
    if (items.length > MAX_BATCH) {
      return { status: 200, body: failure(null, -32005, `batch too large: at most ${MAX_BATCH} calls per request`) };
    }
    try {
      for (let i = 0; i < items.length; i++) {
        await this.gateway.chargeKey(principal.keyId, principal.policies.rateLimitPerSecond);
        if (i > 0) await this.developerLimit.consume(principal.developerId);
      }
    } catch (err) {
      return this.refusal(err);
    }
    const restriction = await this.restrictionOf(principal, network);
    const answers = await Promise.all(
      items.map((item) => this.one(network, item, principal, restriction, session, socket && { ...socket, session })),
    );
    return { status: 200, body: batch ? answers : answers[0]! };
  }

  /** A refusal of the whole request: 401 for the key, 429 over a limit, with a JSON-RPC error body. */
  private refusal(err: unknown): RpcAnswer {
    if (!isAppError(err)) throw err;
    const e = err as AppError;
    const status =
      e.code === 'RATE_LIMITED'
        ? 429
        : e.code === 'INVALID_API_KEY' || e.code === 'UNAUTHENTICATED'
          ? 401
          : e.code === 'KEY_POLICY_DENIED'
            ? 403
            : 400;
    return { status, body: failure(null, jsonRpcCodeOf(e.code), e.message), headers: e.headers };
  }

  private async one(
    network: Network,
    item: unknown,
    principal: ApiKeyPrincipal,
    restriction: Restriction,
    session: Session,
    socket?: SocketContext & { session: Session },
    /** The key's policy was applied and the call counted already (cachedCall). */
    counted = false,
  ): Promise<JsonRpcResponse> {
    const started = performance.now();
    let answer: JsonRpcResponse;
    let method: string | null = null;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      answer = failure(null, -32600, 'invalid request');
    } else {
      const raw = item as Record<string, unknown>;
      const id = idOf(raw.id);
      if (raw.jsonrpc !== '2.0' || typeof raw.method !== 'string') {
        answer = failure(id, -32600, 'invalid request');
      } else if (raw.params !== undefined && !Array.isArray(raw.params)) {
        answer = failure(id, -32602, 'non-array args');
      } else {
        method = raw.method.slice(0, 100);
        const call = { id, method, params: (raw.params as unknown[]) ?? [] };
        answer =
          socket && SUBSCRIPTION_METHODS.has(method)
            ? await this.subscription(network, call, principal, restriction, socket)
            : await this.call(network, call, principal, restriction, session, counted);
      }
    }
    this.recordCall(principal, method, answer, started);
    return answer;
  }

  /** Records one call for analytics, as the gateway's calls are. */
  private recordCall(principal: ApiKeyPrincipal, method: string | null, answer: JsonRpcResponse, started: number) {
    this.usage.record({
      developerId: principal.developerId,
      apiKeyId: principal.keyId,
      contractId: null,
      method,
      kind: 'rpc',
      httpStatus: 'error' in answer ? (answer.error.code === -32603 ? 502 : 400) : 200,
      latencyMs: performance.now() - started,
      gasUsed: null,
      at: Date.now(),
    });
  }

  private async call(
    network: Network,
    call: Call,
    principal: ApiKeyPrincipal,
    restriction: Restriction,
    session: Session,
    counted = false,
  ): Promise<JsonRpcResponse> {
    const { id, method, params } = call;
    const known = READ_METHODS.has(method) || WRITE_METHODS.has(method) || ALCHEMY_METHODS.has(method);
    if (!known || SUBSCRIPTION_METHODS.has(method)) return failure(id, -32601, methodNotFound(method));
    if (WRITE_METHODS.has(method) && !principal.scopes.includes('write')) {
      return failure(id, -32003, `the API key lacks the "write" scope needed for ${method}`);
    }
    if (!WRITE_METHODS.has(method) && !principal.scopes.includes('read')) {
      return failure(id, -32003, `the API key lacks the "read" scope needed for ${method}`);
    }
    try {
      if (restriction && CONTRACT_BOUND_METHODS.has(method)) {
        const refused = this.outsideRestriction(method, params, restriction);
        if (refused) return failure(id, -32602, refused);
      }
      const denied = counted ? undefined : await this.policyRefusal(session, principal, id, method);
      if (denied) return denied;
      switch (method) {
        case 'eth_chainId':
          return { jsonrpc: '2.0', id, result: `0x${CHAIN_IDS[network].toString(16)}` };
        case 'net_version':
          return { jsonrpc: '2.0', id, result: String(CHAIN_IDS[network]) };
        case 'eth_call':
          return await this.ethCall(network, id, params, principal);
        case 'eth_getBalance':
        case 'eth_getCode':
        case 'eth_getTransactionCount':
        case 'eth_getStorageAt':
          return await this.stateAtHead(network, id, method, params, principal);
        case 'eth_getLogs':
          return await this.getLogs(network, id, params, principal);
        case 'alchemy_getAssetTransfers':
          return {
            jsonrpc: '2.0',
            id,
            result: await getAssetTransfers(this.tokens, network, params, async () =>
              Number(await this.blockNumber(network)),
            ),
          };
        case 'alchemy_getTokenBalances':
          return { jsonrpc: '2.0', id, result: await getTokenBalances(this.tokens, network, params) };
        case 'eth_sendRawTransaction': {
          const refused = await this.sendRefusal(network, params, principal);
          if (refused) return failure(id, refused.code, refused.message);
          return await this.sendRaw(network, id, params, principal);
        }
        default: {
          const answer = await this.relay(network, id, method, params, principal.developerId);
          this.noteBlockSeen(network, method, answer);
          return answer;
        }
      }
    } catch (err) {
      if (err instanceof NodeAnswerError) return failure(id, err.error.code, err.error.message, err.error.data);
      if (isAppError(err)) return failure(id, jsonRpcCodeOf(err.code), cut(err.message));
      this.logger.error({ err, method }, 'JSON-RPC door call failed');
      return failure(id, -32603, 'internal error');
    }
  }

  /** `eth_subscribe` and `eth_unsubscribe` on a WebSocket connection. */
  private async subscription(
    network: Network,
    call: Call,
    principal: ApiKeyPrincipal,
    restriction: Restriction,
    socket: SocketContext & { session: Session },
  ): Promise<JsonRpcResponse> {
    const { id, method, params } = call;
    const { subs } = socket;
    if (!principal.scopes.includes('read'))
      return failure(id, -32003, `the API key lacks the "read" scope needed for ${method}`);
    if (method === 'eth_unsubscribe') {
      const feed = typeof params[0] === 'string' ? subs.running.get(params[0]) : undefined;
      if (feed) {
        subs.running.delete(params[0] as string);
        void feed.return(undefined);
      }
      return { jsonrpc: '2.0', id, result: feed !== undefined };
    }
    const denied = await this.policyRefusal(socket.session, principal, id, method);
    if (denied) return denied;
    if (subs.running.size >= MAX_SUBSCRIPTIONS) {
      return failure(id, -32005, `at most ${MAX_SUBSCRIPTIONS} subscriptions on one connection`);
    }
    const [kind, options] = params;
    const opts = (typeof options === 'object' && options !== null ? options : {}) as Record<string, unknown>;
    let fromBlock: number | undefined;
    if (opts.fromBlock !== undefined) {
      if (typeof opts.fromBlock !== 'string' || !HEX_QUANTITY.test(opts.fromBlock)) {
        return failure(id, -32602, 'fromBlock must be a hex block number');
      }
      fromBlock = Number(BigInt(opts.fromBlock));
    }
    let feed: AsyncGenerator<unknown>;
    if (kind === 'newHeads' && fromBlock === undefined) {
      const subscription = `0x${randomBytes(16).toString('hex')}`;
      subs.running.set(subscription, this.liveHeads(network, subscription, socket));
      return { jsonrpc: '2.0', id, result: subscription };
    } else if (kind === 'newHeads') {
      feed = this.subscriptions.newHeads(network, fromBlock);
    } else if (kind === 'logs') {
      const filter: LogFilter = {};
      if (opts.address !== undefined) filter.address = opts.address as LogFilter['address'];
      if (opts.topics !== undefined) filter.topics = opts.topics as LogFilter['topics'];
      const addresses = Array.isArray(filter.address)
        ? filter.address
        : filter.address === undefined
          ? []
          : [filter.address];
      if (!addresses.every((a) => typeof a === 'string' && isAddressLike(a))) {
        return failure(id, -32602, 'address must be an address or a list of addresses');
      }
      // The filter keys the per-block answers every subscriber shares: bounded, as geth bounds topics.
      if (addresses.length > MAX_FILTER_ENTRIES || !topicsWithinBounds(filter.topics)) {
        return failure(
          id,
          -32602,
          `a logs filter holds at most ${MAX_FILTER_ENTRIES} addresses and 4 topic positions of ${MAX_FILTER_ENTRIES} hashes each`,
        );
      }
      if (restriction && (addresses.length === 0 || !addresses.every((a) => restriction.has(a.toLowerCase())))) {
        return failure(id, -32602, 'the API key is restricted to other contracts');
      }
      feed = this.subscriptions.logs(network, filter, fromBlock);
    } else {
      return failure(
        id,
        -32602,
        `unsupported subscription: ${String(kind).slice(0, 64)}; newHeads and logs are served`,
      );
    }
    const subscription = `0x${randomBytes(16).toString('hex')}`;
    subs.running.set(subscription, feed);
    void this.pump(subscription, feed, socket);
    return { jsonrpc: '2.0', id, result: subscription };
  }

  /** Pushes a feed's items to the connection while the key stays valid and the peer keeps up. */
  private async pump(
    subscription: string,
    feed: AsyncGenerator<unknown>,
    socket: SocketContext & { session: Session },
  ) {
    // A JsonRpcNotification of this subscription, written around each result's JSON.
    const prefix = `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${subscription}","result":`;
    try {
      for await (const result of feed) {
        if (socket.closed() || !socket.subs.running.has(subscription)) return;
        const rechecked = socket.session.rechecked();
        if (rechecked.apiKeyNow() === undefined) {
          try {
            await rechecked.apiKey();
          } catch {
            socket.peer.end(1008, 'the API key is no longer valid');
            return;
          }
        }
        if (!socket.peer.push(`${prefix}${resultJson(result)}}}`)) return;
      }
    } catch (err) {
      socket.subs.running.delete(subscription);
      if (socket.closed()) return;
      const reason = isAppError(err) ? err.message : 'the subscription failed';
      if (!isAppError(err)) this.logger.error({ err }, 'JSON-RPC subscription failed');
      socket.peer.end(1011, cut(reason).slice(0, 120));
    }
  }

  /**
   * A newHeads subscription without `fromBlock`: a listener of the network's one follower, which
   * hands every subscriber the same header (its JSON made once) in one pass. Each header is pushed
   * as pump pushes a feed's items, in order, while the key stays valid and the peer keeps up; a
   * header that comes while the key is re-checked against the database waits for it.
   */
  private liveHeads(network: Network, subscription: string, socket: SocketContext & { session: Session }): Running {
    const prefix = `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${subscription}","result":`;
    /** Headers behind a re-check of the key that needs the database, in order. */
    const waiting: Record<string, unknown>[] = [];
    let checking = false;
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      waiting.length = 0;
      unlisten();
    };
    const send = (header: Record<string, unknown>): void => {
      if (ended) return;
      if (socket.closed() || !socket.subs.running.has(subscription)) return end();
      const rechecked = socket.session.rechecked();
      if (rechecked.apiKeyNow() === undefined) {
        checking = true;
        rechecked.apiKey().then(
          () => {
            checking = false;
            push(header);
            while (!checking && !ended && waiting.length > 0) send(waiting.shift()!);
          },
          () => {
            socket.peer.end(1008, 'the API key is no longer valid');
            end();
          },
        );
        return;
      }
      push(header);
    };
    const push = (header: Record<string, unknown>) => {
      if (ended) return;
      if (!socket.peer.push(`${prefix}${resultJson(header)}}}`)) end();
    };
    const unlisten = this.subscriptions.listenHeads(network, {
      header: (header) => {
        if (ended) return;
        if (!checking) return send(header);
        if (waiting.length >= MAX_WAITING_HEADERS) {
          return this.failSubscription(
            subscription,
            socket,
            new AppError(
              'RATE_LIMITED',
              `The subscriber fell more than ${MAX_WAITING_HEADERS} blocks behind and was dropped; subscribe again`,
            ),
            end,
          );
        }
        waiting.push(header);
      },
      fail: (err) => this.failSubscription(subscription, socket, err, end),
    });
    return {
      return: () => {
        end();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }

  /** A subscription's feed failed: the connection is closed with the reason (as pump does). */
  private failSubscription(
    subscription: string,
    socket: SocketContext & { session: Session },
    err: unknown,
    end: () => void,
  ): void {
    end();
    socket.subs.running.delete(subscription);
    if (socket.closed()) return;
    const reason = isAppError(err) ? err.message : 'the subscription failed';
    if (!isAppError(err)) this.logger.error({ err }, 'JSON-RPC subscription failed');
    socket.peer.end(1011, cut(reason).slice(0, 120));
  }

  /** The node's answer, its error object kept (code, message cut to 4 KiB, data). */
  private async relay(
    network: Network,
    id: JsonRpcId,
    method: string,
    params: unknown[],
    group?: string,
  ): Promise<JsonRpcResponse> {
    const answer = await this.chains.relay(network, method, params, group);
    if ('result' in answer) return { jsonrpc: '2.0', id, result: answer.result };
    const { code, message, data } = answer.error;
    return failure(id, typeof code === 'number' ? code : -32603, cut(String(message ?? 'error')), data);
  }

  /**
   * eth_call: a plain call (to and data only) at `latest` is read at the head the service knows,
   * through the gateway's read cache; anything else goes to the node as sent.
   */
  private async ethCall(
    network: Network,
    id: JsonRpcId,
    params: unknown[],
    principal: ApiKeyPrincipal,
  ): Promise<JsonRpcResponse> {
    const read = plainRead(params);
    if (!read) return this.relay(network, id, 'eth_call', params, principal.developerId);
    const { to, data: payload } = read;
    const result = await this.gateway.readAtHead(network, to.toLowerCase(), payload.toLowerCase(), async (block) => {
      const tagAt = block === undefined ? 'latest' : `0x${block.toString(16)}`;
      const answer = await this.chains.relay(
        network,
        'eth_call',
        [{ to, data: payload }, tagAt],
        principal.developerId,
      );
      if ('result' in answer) return String(answer.result);
      const { code, message, data: revertData } = answer.error;
      throw new NodeAnswerError({ code, message: cut(String(message ?? 'error')), data: revertData });
    });
    return { jsonrpc: '2.0', id, result };
  }

  /**
   * An account's balance, code, nonce or storage slot at `latest` (or no tag), read at the head the
   * service knows through the read cache as eth_call is; any other tag (a number, `pending`) goes
   * to the node as sent.
   */
  private async stateAtHead(
    network: Network,
    id: JsonRpcId,
    method: string,
    params: unknown[],
    principal: ApiKeyPrincipal,
  ): Promise<JsonRpcResponse> {
    const at = method === 'eth_getStorageAt' ? 2 : 1;
    const subject = params.slice(0, at);
    const tag = params[at];
    const plain =
      params.length <= at + 1 &&
      (tag === undefined || tag === 'latest') &&
      subject.length === at &&
      subject.every((p) => typeof p === 'string' && HEX_DATA.test(p) && p.length <= 66) &&
      isAddressLike(subject[0] as string);
    if (!plain) return this.relay(network, id, method, params, principal.developerId);
    const key = `${method}:${(subject as string[]).join(':').toLowerCase()}`;
    const result = await this.gateway.readAtHead(network, key, '', async (block) => {
      const tagAt = block === undefined ? 'latest' : `0x${block.toString(16)}`;
      const answer = await this.chains.relay(network, method, [...subject, tagAt], principal.developerId);
      if ('result' in answer) return String(answer.result);
      const { code, message, data } = answer.error;
      throw new NodeAnswerError({ code, message: cut(String(message ?? 'error')), data });
    });
    return { jsonrpc: '2.0', id, result };
  }

  /**
   * Reads at the head are never older than a block this client was shown: the head it asked for,
   * a receipt's or a block's number raise the head the service reads at (docs/api.md, "JSON-RPC door").
   */
  private noteBlockSeen(network: Network, method: string, answer: JsonRpcResponse): void {
    if (!('result' in answer) || answer.result === null) return;
    const { result } = answer;
    let seen: unknown;
    if (method === 'eth_blockNumber') seen = result;
    else if (method === 'eth_getTransactionReceipt') seen = (result as { blockNumber?: unknown }).blockNumber;
    else if (method === 'eth_getBlockByNumber' || method === 'eth_getBlockByHash') {
      seen = (result as { number?: unknown }).number;
    }
    if (typeof seen === 'string' && HEX_QUANTITY.test(seen)) this.gateway.raiseHead(network, Number(BigInt(seen)));
  }

  /** eth_getLogs within 5,000 blocks (counted on the numbers asked) and 10,000 logs. */
  private async getLogs(
    network: Network,
    id: JsonRpcId,
    params: unknown[],
    principal: ApiKeyPrincipal,
  ): Promise<JsonRpcResponse> {
    const filter = params[0];
    if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) {
      return failure(id, -32602, 'eth_getLogs takes a filter object');
    }
    const { fromBlock, toBlock, blockHash } = filter as Record<string, unknown>;
    if (blockHash === undefined) {
      let head: number | undefined;
      const numberOf = async (v: unknown): Promise<number | null> => {
        if (v === undefined || (typeof v === 'string' && BLOCK_TAGS.has(v))) {
          head ??= Number(await this.blockNumber(network));
          return head;
        }
        if (v === 'earliest') return 0;
        if (typeof v === 'string' && HEX_QUANTITY.test(v)) return Number(BigInt(v));
        return null;
      };
      const from = await numberOf(fromBlock);
      const to = await numberOf(toBlock);
      if (from === null || to === null)
        return failure(id, -32602, 'fromBlock and toBlock must be block numbers or tags');
      if (to - from + 1 > MAX_LOG_BLOCKS) {
        return failure(id, -32005, `eth_getLogs is limited to a ${MAX_LOG_BLOCKS} block range`, {
          limit: MAX_LOG_BLOCKS,
          requested: to - from + 1,
        });
      }
    }
    const answer = await this.relay(network, id, 'eth_getLogs', params, principal.developerId);
    if ('result' in answer && Array.isArray(answer.result) && answer.result.length > MAX_LOGS) {
      return failure(id, -32005, `query returned more than ${MAX_LOGS} results`, { limit: MAX_LOGS });
    }
    return answer;
  }

  private async blockNumber(network: Network): Promise<bigint> {
    const answer = await this.chains.relay(network, 'eth_blockNumber', []);
    if (!('result' in answer)) throw new NodeAnswerError({ code: -32603, message: 'the node did not tell its head' });
    return BigInt(String(answer.result));
  }

  /** Why a raw transaction may not be sent with this key on this network, if it may not. */
  private async sendRefusal(
    network: Network,
    params: unknown[],
    principal: ApiKeyPrincipal,
  ): Promise<JsonRpcError | null> {
    const to = this.rawTarget(params);
    if (to === undefined) return { code: -32602, message: 'invalid raw transaction' };
    if (network !== 'mainnet') return null;
    if (to === null) return { code: -32003, message: MAINNET_SEND_REFUSED };
    const contract = await this.contracts.deployedAt('mainnet', to);
    if (!contract || contract.ownerId !== principal.developerId) return { code: -32003, message: MAINNET_SEND_REFUSED };
    return null;
  }

  /**
   * Relays a raw transaction once its spend is reserved against the key's caps (docs/api.md, "API
   * keys": spend caps): past a cap, the call's error -32003 with the limit and what is left, and
   * nothing is relayed; a transaction the node refuses gives back what it reserved.
   */
  private async sendRaw(
    network: Network,
    id: JsonRpcId,
    params: unknown[],
    principal: ApiKeyPrincipal,
  ): Promise<JsonRpcResponse> {
    // sendRefusal has read it already: a hex string of at most 2 MiB that decodes.
    const tx = Transaction.from(params[0] as string);
    const send = {
      network,
      txHash: tx.hash!,
      value: tx.value,
      gasLimit: tx.gasLimit,
      feePerGas: tx.maxFeePerGas ?? tx.gasPrice ?? 0n,
    };
    let counted: boolean;
    try {
      counted = await reserveDoorSend(this.ds, principal.keyId, principal.policies.spend, send);
    } catch (err) {
      if (isAppError(err) && err.code === 'SPEND_LIMIT_EXCEEDED') {
        return failure(id, jsonRpcCodeOf(err.code), err.message, err.details);
      }
      throw err;
    }
    const answer = await this.relay(network, id, 'eth_sendRawTransaction', params);
    if (counted && 'error' in answer && !/already known/i.test(answer.error.message)) {
      await refundDoorSend(this.ds, network, send.txHash);
    }
    return answer;
  }

  /** The target of a raw transaction (null for a creation), or undefined when it cannot be read. */
  private rawTarget(params: unknown[]): string | null | undefined {
    const [raw] = params;
    if (typeof raw !== 'string' || !HEX_DATA.test(raw) || raw.length > 2 * 1024 * 1024) return undefined;
    try {
      return Transaction.from(raw).to;
    } catch {
      return undefined;
    }
  }

  /** The reason a contract-bound call is outside the key's contracts, if it is. */
  private outsideRestriction(method: string, params: unknown[], allowed: ReadonlySet<string>): string | null {
    const refusal = 'the API key is restricted to other contracts';
    const inside = (address: unknown) => typeof address === 'string' && allowed.has(address.toLowerCase());
    if (method === 'eth_call' || method === 'eth_estimateGas') {
      const tx = params[0];
      return typeof tx === 'object' && tx !== null && inside((tx as Record<string, unknown>).to) ? null : refusal;
    }
    if (method === 'eth_sendRawTransaction') {
      const to = this.rawTarget(params);
      return to === undefined ? 'invalid raw transaction' : inside(to) ? null : refusal;
    }
    // eth_getLogs: every address of the filter, and at least one.
    const filter = params[0];
    const address = typeof filter === 'object' && filter !== null ? (filter as Record<string, unknown>).address : null;
    const addresses = Array.isArray(address) ? address : address === undefined || address === null ? [] : [address];
    return addresses.length > 0 && addresses.every(inside) ? null : refusal;
  }

  /**
   * The key's method policy and daily quota for one call that passed the other checks (docs/api.md,
   * "API keys": refusals), its refusal as the call's error; a call refused earlier is not counted.
   */
  private async policyRefusal(
    session: Session,
    principal: ApiKeyPrincipal,
    id: JsonRpcId,
    method: string,
  ): Promise<JsonRpcResponse | undefined> {
    try {
      await session.keyCall(principal, [method]);
      return undefined;
    } catch (e) {
      if (!isAppError(e)) throw e;
      return failure(id, jsonRpcCodeOf(e.code), e.message, e.details);
    }
  }

  /** The addresses of the key's contracts on `network` (lower case), or null when the key is not restricted. */
  private async restrictionOf(principal: ApiKeyPrincipal, network: Network): Promise<Restriction> {
    if (!principal.contractIds) return null;
    const addresses = new Set<string>();
    for (const contractId of principal.contractIds) {
      let known = this.contractAddresses.get(contractId);
      if (!known) {
        const contract = await this.contracts.require(contractId).catch(() => null);
        if (!contract?.address || contract.status !== 'deployed') continue;
        known = { network: contract.network, address: contract.address.toLowerCase() };
        this.contractAddresses.set(contractId, known);
      }
      if (known.network === network) addresses.add(known.address);
    }
    return addresses;
  }
}
