import { createHash } from 'node:crypto';
import { Interface } from 'ethers';
import { LRUCache } from 'lru-cache';
import type { DataSource } from 'typeorm';
import type { ChainRegistry } from '../../chain/chain-registry';
import { decodeRevert, type DecodedRevert } from '../../chain/revert-decoder';
import { AppError } from '../../kernel/errors/app-error';
import { httpStatusOf } from '../../kernel/errors/error-codes';
import { isAccepted, successStatus } from '../../kernel/success-status';
import type { Logger } from '../../kernel/logger';
import type { Session } from '../../auth/session';
import type { Network } from '../../kernel/network';
import type { RequestLimit } from '../../kernel/rate-limit';
import type { UsageRecorder } from '../analytics';
import type { ContractEntity } from '../contracts';
import type { ContractService } from '../contracts';
import type { ApiKeyPrincipal } from '../../auth/authority';
import type { ApiKeyService } from '../keys';
import type { PreparedTransaction, RecordedQueued, SendRequest, TransactionSender } from '../wallets';
import type { WalletService } from '../wallets';
import { checkSpendPerTx, feePerGasOf } from '../wallets';
import { CallCodec, dataBytes, DecodeBudget, elementsOf, findMethod, tooLarge, type AbiMethod } from '../../chain/abi';
import type { GatewayInvokeResult, GatewayQueryResult } from './gateway.types';
import { IdempotencyStore, type FirstAttempt } from './idempotency';
import type { RecordedCall, StoredRecord, TransactionRetrier } from '../transactions';
import type { KnownHeads } from './known-heads';
import type { ReadCache, ReadCacheStats } from './read-cache';

/** docs/api.md, "Gateway": no receipt within 60 s → answered as pending. */
const RECEIPT_TIMEOUT_MS = 60_000;

/** A deployed, registered contract ready to serve: such a contract never changes again. */
interface ServedContract {
  record: ContractEntity;
  iface: Interface;
  methods: Map<string, AbiMethod>;
}

interface CallTrace {
  principal?: ApiKeyPrincipal;
  contractId: string | null;
  method: string | null;
  gasUsed: string | null;
  /** The HTTP status of a success (kernel/success-status.ts: 201, or 202 when accepted for later). */
  httpStatus?: number;
}

export interface InvokeOptions {
  value?: string | null;
  gasLimit?: string | null;
  /** Fee overrides and a deadline (docs/api.md, "Gateway": fee overrides, timeoutSeconds). */
  maxFeePerGas?: string | null;
  maxPriorityFeePerGas?: string | null;
  gasPrice?: string | null;
  timeoutSeconds?: number | null;
  idempotencyKey?: string | null;
  /** Prefer: respond-async: answer once accepted (checks passed, record queued), send afterwards. */
  respondAsync?: boolean;
}

/** Longest timeoutSeconds of an invoke: 7 days (docs/api.md, "Gateway": timeoutSeconds). */
const MAX_TIMEOUT_SECONDS = 604_800;

/** A stored decimal string as a bigint (absent stays absent). */
function uintOf(value: string | undefined): bigint | undefined {
  return value === undefined ? undefined : BigInt(value);
}

/** What an invoke sends, as its record keeps it to send it again. */
function recordedCall(request: SendRequest): RecordedCall {
  const call: RecordedCall = { to: request.to!, data: request.data ?? '0x' };
  if (request.value !== undefined) call.value = request.value.toString();
  if (request.gasLimit !== undefined) call.gasLimit = request.gasLimit.toString();
  const fees = request.feeOverrides;
  if (fees?.maxFeePerGas !== undefined) call.maxFeePerGas = fees.maxFeePerGas.toString();
  if (fees?.maxPriorityFeePerGas !== undefined) call.maxPriorityFeePerGas = fees.maxPriorityFeePerGas.toString();
  if (fees?.gasPrice !== undefined) call.gasPrice = fees.gasPrice.toString();
  if (request.timeoutSeconds !== undefined) call.timeoutSeconds = request.timeoutSeconds;
  return call;
}

/** The HTTP status a failed call is recorded with: its AppError's, else 500. */
const failureStatus = (e: unknown): number => (e instanceof AppError ? httpStatusOf(e.code) : 500);

/** Parses a non-negative integer given as a decimal or 0x string (wei, gas). */
function parseUint(value: string | null | undefined, field: string): bigint | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value !== 'string' || !/^(0x[0-9a-fA-F]+|[0-9]+)$/.test(value)) {
    throw new AppError('VALIDATION_FAILED', `${field} must be a non-negative integer as a decimal or 0x string`, {
      field,
    });
  }
  return BigInt(value);
}

/**
 * The contract gateway: machine access to deployed, registered contracts with API keys. Every call
 * made with a valid key is recorded for analytics, whatever its outcome.
 */
export class GatewayService implements TransactionRetrier {
  private readonly served = new LRUCache<string, ServedContract>({ max: 5000 });
  /** API_KEY_RATE_LIMIT: requests per second per key. */
  private readonly keyLimit: RequestLimit;
  /** Keys' own rateLimitPerSecond budgets, one limiter per distinct rate (a second's windows: losing one is harmless). */
  private readonly ownKeyLimits = new LRUCache<number, RequestLimit>({ max: 1000 });
  private readonly ownKeyLimit: (perSecond: number) => RequestLimit;
  private readonly codec = new CallCodec();
  /** Elements of the results decoded for each request so far (one Session per request or operation). */
  private readonly decodeBudgets = new WeakMap<Session, DecodeBudget>();
  readonly idempotency: IdempotencyStore;
  /** Sends of accepted invokes still signing or broadcasting (a clean stop waits for them). */
  private readonly sending = new Set<Promise<void>>();
  /** Reads answered without waiting (queryNow, readAtHeadNow), since start. */
  private immediate = 0;
  /** Requests queryNow charged to their key's per-second budget and left to query (one charge each). */
  private readonly prepaid = new WeakSet<Session>();

  constructor(
    ds: DataSource,
    private readonly keys: ApiKeyService,
    private readonly contracts: ContractService,
    private readonly chains: ChainRegistry,
    private readonly wallets: WalletService,
    private readonly sender: TransactionSender,
    private readonly usage: UsageRecorder,
    /**
     * API_KEY_RATE_LIMIT, and a key's own `rateLimitPerSecond` (docs/api.md, "API keys"), counted
     * where the other per-second limits are (kernel/rate-limit.ts).
     */
    keyLimits: { service: RequestLimit; own: (perSecond: number) => RequestLimit },
    private readonly logger: Logger,
    /** Block-scoped answers of queries and the head they are read at. */
    private readonly reads: { cache: ReadCache; heads: KnownHeads },
  ) {
    this.keyLimit = keyLimits.service;
    this.ownKeyLimit = keyLimits.own;
    this.idempotency = new IdempotencyStore(ds);
  }

  /** The read cache's counts, for the metrics. */
  readCacheStats(): ReadCacheStats & { immediate: number } {
    return { ...this.reads.cache.stats(), immediate: this.immediate };
  }

  /** Lets the chain watchers slow down again. */
  close(): void {
    this.reads.heads.close();
  }

  async query(session: Session, contractId: string, method: string, args: unknown): Promise<GatewayQueryResult> {
    return this.traced('query', async (trace) => {
      const { contract, abiMethod, principal } = await this.authorize(session, contractId, method, 'read', trace);
      // A call would run it, answer null and change nothing: the caller meant invoke.
      if (!abiMethod.readOnly) {
        throw new AppError(
          'VALIDATION_FAILED',
          `${abiMethod.signature} changes state: send it with invoke (POST .../invoke/${abiMethod.name}), not query`,
          { method: abiMethod.signature },
        );
      }
      const data = this.codec.encode(contract.record.id, contract.iface, abiMethod, args);
      const { network } = contract.record;
      const to = contract.record.address!;
      // The node may answer reads in batches, one developer's reads apart from another's.
      const call = (block?: number) =>
        this.chains.call(network, { to, data }, block, principal.developerId).catch(async (e: unknown) => {
          const revert = await decodeRevert(e, contract.iface);
          if (revert && !(e instanceof AppError)) throw this.reverted(revert);
          throw e;
        });
      // Only the node's answer is shared: authorization, rate limit and analytics ran above for this call.
      const deployedAt = contract.record.blockNumber === null ? null : Number(contract.record.blockNumber);
      const block = this.reads.heads.headFor(network, deployedAt);
      let raw: string;
      if (block === null) {
        raw = await this.reads.cache.readLatest(network, to, data, () => call());
      } else {
        raw = await this.reads.cache.read(network, block, to, data, () => call(block));
      }
      // A value for static outputs and remembered answers (small), else a promise (see CallCodec.decode).
      const decoded: unknown = this.codec.decode(contract.record.id, contract.iface, abiMethod, raw);
      if (!(decoded instanceof Promise)) return { result: decoded, blockNumber: block };
      const result: unknown = await decoded;
      // The results of one request (a GraphQL operation's aliases) hold 100,000 elements in all, as one
      // value may: docs/api.md "Hostile chain data".
      let budget = this.decodeBudgets.get(session);
      if (!budget) this.decodeBudgets.set(session, (budget = new DecodeBudget()));
      if (!budget.take(result)) throw tooLarge(dataBytes(raw), budget.taken + elementsOf(result));
      return { result, blockNumber: block };
    });
  }

  /**
   * query, when it is decided without waiting for anything but the key's per-second budget: a read
   * by a key this instance has checked before (no daily quota) of a contract it serves, of a method
   * called before, that the read cache holds at the head. `authorize`'s checks pass first, in its
   * order, then the call is counted and recorded as query's would be. Undefined, nothing counted or
   * refused, when only query can tell; with a per-second budget, a promise: the key charged first
   * (a refusal rejects it, recorded as query records it), then the answer, or undefined and query
   * runs without charging the request again (the REST query route; docs/api.md, "Gateway").
   */
  queryNow(
    session: Session,
    contractId: string,
    method: string,
    args: unknown,
  ): GatewayQueryResult | Promise<GatewayQueryResult | undefined> | undefined {
    const started = performance.now();
    const known = this.knownRead(session, contractId, method);
    if (!known) return undefined;
    const { keyId, policies } = known.principal;
    const charge = this.chargeKeyNow(keyId, policies.rateLimitPerSecond);
    if (charge === null) return this.answerNow(session, known, args, started);
    return charge.then(
      () => {
        const answered = this.answerNow(session, known, args, started);
        // Charged already: query, which answers instead, does not charge this request again.
        if (answered === undefined) this.prepaid.add(session);
        return answered;
      },
      (e: unknown) => {
        // Refused by the key's budget before the contract is known, as in authorize.
        const refused = { contractId: null, method: null, gasUsed: null };
        this.recordCall('query', known.principal, refused, failureStatus(e), started);
        throw e;
      },
    );
  }

  /** What queryNow reads, when this instance knows it all without waiting; undefined otherwise. */
  private knownRead(
    session: Session,
    contractId: string,
    method: string,
  ): { contract: ServedContract; principal: ApiKeyPrincipal; abiMethod: AbiMethod } | undefined {
    const contract = this.served.get(contractId);
    if (!contract || contract.record.status !== 'deployed' || !contract.record.middlewareRegistered) return undefined;
    const principal = session.apiKeyForNow(contract.record, 'read');
    if (!principal || principal.policies.dailyQuota !== null) return undefined;
    // Methods are found (and remembered) by query; a name still percent-encoded is decoded there.
    const abiMethod = method.includes('%') ? undefined : contract.methods.get(method);
    return abiMethod?.readOnly ? { contract, principal, abiMethod } : undefined;
  }

  /** The held answer of a known read, counted and recorded; undefined, nothing counted, when not held. */
  private answerNow(
    session: Session,
    { contract, principal, abiMethod }: { contract: ServedContract; principal: ApiKeyPrincipal; abiMethod: AbiMethod },
    args: unknown,
    started: number,
  ): GatewayQueryResult | undefined {
    const { record } = contract;
    const block = this.reads.heads.headFor(
      record.network,
      record.blockNumber === null ? null : Number(record.blockNumber),
    );
    if (block === null) return undefined;
    let data: string;
    try {
      data = this.codec.encode(record.id, contract.iface, abiMethod, args);
    } catch {
      return undefined;
    }
    const raw = this.reads.cache.hit(record.network, block, record.address!.toLowerCase(), data.toLowerCase());
    if (raw === undefined) return undefined;
    const result = this.codec.decodeNow(record.id, abiMethod, raw);
    // Last, as in authorize: the key's method policy, then the call counted.
    if (result === undefined || !session.keyCallNow(principal, [abiMethod.name, abiMethod.signature])) return undefined;
    const call = { contractId: record.id, method: abiMethod.signature, gasUsed: null };
    this.recordCall('query', principal, call, successStatus('POST'), started);
    this.immediate++;
    return { result, blockNumber: block };
  }

  /** One call recorded for analytics (`started`: its performance.now() when it began). */
  private recordCall(
    kind: 'query' | 'invoke',
    principal: ApiKeyPrincipal,
    call: Pick<CallTrace, 'contractId' | 'method' | 'gasUsed'>,
    httpStatus: number,
    started: number,
  ): void {
    this.usage.record({
      developerId: principal.developerId,
      apiKeyId: principal.keyId,
      contractId: call.contractId,
      method: call.method,
      kind,
      httpStatus,
      latencyMs: performance.now() - started,
      gasUsed: call.gasUsed,
      at: Date.now(),
    });
  }

  async invoke(
    session: Session,
    contractId: string,
    method: string,
    args: unknown,
    opts: InvokeOptions,
  ): Promise<GatewayInvokeResult> {
    return this.traced('invoke', async (trace) => {
      const { contract, abiMethod, principal } = await this.authorize(session, contractId, method, 'write', trace);
      if (abiMethod.readOnly) {
        throw new AppError(
          'VALIDATION_FAILED',
          `${abiMethod.signature} is a view function: call it with query, not invoke`,
          {
            method: abiMethod.signature,
          },
        );
      }
      const value = parseUint(opts.value, 'value');
      const gasLimit = parseUint(opts.gasLimit, 'gasLimit');
      const feeOverrides = {
        maxFeePerGas: parseUint(opts.maxFeePerGas, 'maxFeePerGas'),
        maxPriorityFeePerGas: parseUint(opts.maxPriorityFeePerGas, 'maxPriorityFeePerGas'),
        gasPrice: parseUint(opts.gasPrice, 'gasPrice'),
      };
      const timeoutSeconds = opts.timeoutSeconds ?? undefined;
      if (
        timeoutSeconds !== undefined &&
        (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1 || timeoutSeconds > MAX_TIMEOUT_SECONDS)
      ) {
        throw new AppError('VALIDATION_FAILED', `timeoutSeconds must be an integer from 1 to ${MAX_TIMEOUT_SECONDS}`, {
          field: 'timeoutSeconds',
        });
      }
      if (value && value > 0n && !abiMethod.payable) {
        throw new AppError('INVALID_ARGUMENT', `${abiMethod.signature} is not payable: it cannot receive value`, {
          field: 'value',
        });
      }
      const data = this.codec.encode(contract.record.id, contract.iface, abiMethod, args);
      const run = async (first?: FirstAttempt): Promise<GatewayInvokeResult> => {
        const signer = await this.wallets.custodialSigner(contract.record.ownerId);
        const request = {
          network: contract.record.network,
          signer,
          to: contract.record.address!,
          data,
          value,
          gasLimit,
          kind: 'invoke' as const,
          developerId: contract.record.ownerId,
          contractId: contract.record.id,
          method: abiMethod.signature,
          iface: contract.iface,
          onRecorded: first?.onRecorded,
          // Counted against the key's spend caps when recorded (docs/api.md, "API keys": spend caps).
          apiKey: { keyId: principal.keyId, spend: principal.policies.spend },
          feeOverrides,
          timeoutSeconds,
        };
        const prepared = await this.simulateAndPrepare(request, principal);
        const record = {
          kind: 'invoke' as const,
          network: request.network,
          developerId: contract.record.ownerId,
          apiKeyId: principal.keyId,
          contractId: contract.record.id,
          method: abiMethod.signature,
          // Kept so that a failed invoke can be sent again (docs/api.md, "Transactions": retry).
          call: recordedCall(request),
        };
        if (opts.respondAsync) {
          // Every check has passed: the record is queued (with the key's answer, for repeats) and sent after answering.
          let accepted: GatewayInvokeResult | undefined;
          const queued = await this.sender.sendRecorded({
            request: { ...request, onRecorded: undefined },
            prepared,
            record,
            respondAsync: true,
            withRecord: async (m, created) => {
              accepted = {
                transactionId: created.id,
                status: created.status,
                txHash: null,
                blockNumber: null,
                gasUsed: null,
              };
              if (first) await IdempotencyStore.done(m, first.developerId, first.key, accepted);
            },
          });
          void this.followAccepted(request, queued);
          return accepted!;
        }
        const { recordId, sent } = await this.sender.sendRecorded({ request, prepared, record });
        return this.outcome(contract.record.network, sent.txHash, contract.iface, recordId, timeoutSeconds);
      };
      const result = opts.idempotencyKey
        ? await this.idempotency.run(
            principal.developerId,
            opts.idempotencyKey,
            createHash('sha256')
              .update(
                JSON.stringify([
                  contract.record.id,
                  abiMethod.signature,
                  args ?? [],
                  opts.value ?? null,
                  opts.gasLimit ?? null,
                  ...(opts.maxFeePerGas || opts.maxPriorityFeePerGas || opts.gasPrice || opts.timeoutSeconds
                    ? [
                        opts.maxFeePerGas ?? null,
                        opts.maxPriorityFeePerGas ?? null,
                        opts.gasPrice ?? null,
                        timeoutSeconds ?? null,
                      ]
                    : []),
                ]),
              )
              .digest('hex'),
            run,
            (txHash) => this.outcome(contract.record.network, txHash, contract.iface),
          )
        : await run();
      // The client now knows this block: no later query may answer from an older one.
      if (result.blockNumber !== null) this.reads.heads.raise(contract.record.network, result.blockNumber);
      trace.gasUsed = result.gasUsed;
      trace.httpStatus = successStatus('POST', isAccepted(result));
      return result;
    });
  }

  /**
   * What every send of an invoke meets before anything is recorded: the call simulated (a revert is
   * answered with its reason and nothing is sent), gas and fees settled, the key's caps of one
   * transaction checked.
   */
  private async simulateAndPrepare(request: SendRequest, principal: ApiKeyPrincipal): Promise<PreparedTransaction> {
    await this.chains
      .provider(request.network)
      .call({ from: request.signer.address, to: request.to, data: request.data, value: request.value })
      .catch(async (e: unknown) => {
        throw await this.sender.translate(e, request);
      });
    const prepared = await this.sender.prepare(request);
    if (principal.policies.spend) {
      checkSpendPerTx(principal.policies.spend, request.value ?? 0n, feePerGasOf(prepared.fees));
    }
    return prepared;
  }

  /**
   * Sends a failed invoke again under its record (docs/api.md, "Transactions": retry), as a new
   * invoke would be sent: the contract still served, the key that sent it as it stands now (revoked
   * or expired → 409; its contracts, methods and spend caps applied again), the call simulated and
   * gas and fees settled anew. Only then is the record queued again and sent; answered once sent,
   * the receipt followed afterwards (the record tells it, the tracker if this process stops).
   */
  async retry(_session: Session, record: StoredRecord): Promise<void> {
    const call = record.call;
    if (!call || !record.contractId || !record.method || !record.apiKeyId) {
      throw new AppError('INVALID_STATE', 'The transaction cannot be retried: what it sent was not kept', {
        status: record.status,
      });
    }
    const contract = await this.servedContract(record.contractId);
    if (contract.record.status !== 'deployed' || !contract.record.middlewareRegistered) {
      throw new AppError('CONTRACT_NOT_DEPLOYED', `The contract is ${contract.record.status}, not served`, {
        status: contract.record.status,
      });
    }
    const abiMethod = findMethod(contract.record.abi, record.method);
    const principal = await this.keys.senderAgain(record.apiKeyId, contract.record, [
      abiMethod.name,
      abiMethod.signature,
    ]);
    const request: SendRequest = {
      network: contract.record.network,
      signer: await this.wallets.custodialSigner(contract.record.ownerId),
      to: call.to,
      data: call.data,
      value: uintOf(call.value),
      gasLimit: uintOf(call.gasLimit),
      kind: 'invoke',
      developerId: contract.record.ownerId,
      contractId: contract.record.id,
      method: abiMethod.signature,
      iface: contract.iface,
      apiKey: { keyId: principal.keyId, spend: principal.policies.spend },
      feeOverrides: {
        maxFeePerGas: uintOf(call.maxFeePerGas),
        maxPriorityFeePerGas: uintOf(call.maxPriorityFeePerGas),
        gasPrice: uintOf(call.gasPrice),
      },
      timeoutSeconds: call.timeoutSeconds,
      recordId: record.id,
    };
    const prepared = await this.simulateAndPrepare(request, principal);
    // Conditional: of two retries at once one queues it, the other finds it no longer failed.
    if (!(await this.sender.records.requeue(record.id))) {
      const now = await this.sender.records.find(record.id);
      throw new AppError(
        'INVALID_STATE',
        `The transaction is ${now?.status ?? 'gone'}: only a failed one can be retried`,
        {
          status: now?.status ?? null,
        },
      );
    }
    const { txHash } = await this.sender.send(request, prepared);
    void this.sender
      .waitForReceipt(request.network, txHash, RECEIPT_TIMEOUT_MS, request.iface)
      .catch((err: unknown) => this.logger.warn({ err, recordId: record.id }, 'a retried invoke was not followed'));
  }

  /**
   * Follows an accepted invoke after its 202 to its receipt. Its record tells the outcome (the
   * sender ends it failed if it cannot be sent; the tracker follows a late receipt).
   */
  private async followAccepted(request: SendRequest, queued: RecordedQueued): Promise<void> {
    try {
      const tracked = queued.sending.then(
        () => undefined,
        () => undefined,
      );
      this.sending.add(tracked);
      void tracked.finally(() => this.sending.delete(tracked));
      const { txHash } = await queued.sending;
      // From here the record is pending: should this process stop, the tracker follows it.
      await this.sender.waitForReceipt(request.network, txHash, RECEIPT_TIMEOUT_MS, request.iface);
    } catch (err) {
      this.logger.warn({ err, recordId: queued.recordId }, 'an accepted invoke was not sent or not followed');
    }
  }

  /** Lets the sends of accepted invokes finish signing and broadcasting (at shutdown, after the HTTP server). */
  async drain(): Promise<void> {
    await Promise.all([...this.sending]);
  }

  /** Waits for the receipt of a sent invoke and shapes the answer. */
  private async outcome(
    network: ContractEntity['network'],
    txHash: string,
    iface: Interface,
    recordId?: string,
    timeoutSeconds?: number,
  ): Promise<GatewayInvokeResult> {
    const transactionId = recordId ?? (await this.sender.recordIdOf(network, txHash)) ?? null;
    // A transaction given a shorter timeout is not waited for past it: the tracker ends it.
    const waitMs = Math.min(RECEIPT_TIMEOUT_MS, (timeoutSeconds ?? Infinity) * 1000);
    // The wait ends at once when the record ends without this transaction mined (cancelled by a
    // replacement at its nonce, failed): the answer then says so instead of `pending`.
    const mined = await this.sender.waitForReceipt(network, txHash, waitMs, iface, transactionId ?? undefined);
    if (!mined) {
      const ended = transactionId ? (await this.sender.records.find(transactionId))?.status : undefined;
      const status = ended === 'cancelled' || ended === 'failed' ? ended : 'pending';
      return { transactionId, txHash, blockNumber: null, gasUsed: null, status };
    }
    const result: GatewayInvokeResult = {
      transactionId,
      txHash,
      blockNumber: mined.blockNumber,
      gasUsed: mined.gasUsed,
      status: mined.status,
    };
    if (mined.status === 'reverted' && mined.revertReason !== undefined) result.revertReason = mined.revertReason;
    return result;
  }

  private reverted(revert: DecodedRevert): AppError {
    return new AppError('EXECUTION_REVERTED', `Execution reverted: ${revert.reason}`, {
      reason: revert.reason,
      ...(revert.error ? { error: revert.error } : {}),
      ...(revert.panicCode !== undefined ? { panicCode: revert.panicCode } : {}),
    });
  }

  /** Runs a call, then records it for analytics if it was made with a valid key. */
  private async traced<T>(kind: 'query' | 'invoke', fn: (trace: CallTrace) => Promise<T>): Promise<T> {
    const started = performance.now();
    const trace: CallTrace = { contractId: null, method: null, gasUsed: null };
    let status: number = successStatus('POST');
    try {
      const result = await fn(trace);
      status = trace.httpStatus ?? successStatus('POST');
      return result;
    } catch (e) {
      status = failureStatus(e);
      throw e;
    } finally {
      if (trace.principal) this.recordCall(kind, trace.principal, trace, status, started);
    }
  }

  /** The checks of docs/api.md, "Gateway", in their order, each with its code. */
  private async authorize(
    session: Session,
    contractId: string,
    method: string,
    scope: 'read' | 'write',
    trace: CallTrace,
  ): Promise<{ contract: ServedContract; abiMethod: AbiMethod; principal: ApiKeyPrincipal }> {
    const principal = await session.apiKey();
    trace.principal = principal;
    // A request queryNow charged already (it could not answer at once) is not charged again.
    if (!this.prepaid.delete(session)) await this.chargeKey(principal.keyId, principal.policies.rateLimitPerSecond);
    const contract = await this.servedContract(contractId);
    // Counted under the contract only when it is the key owner's: another developer's contract
    // (refused below) never appears, by id or name, in this developer's analytics.
    if (contract.record.ownerId === principal.developerId) trace.contractId = contract.record.id;
    await session.apiKeyFor(contract.record, scope);
    if (contract.record.status !== 'deployed') {
      throw new AppError('CONTRACT_NOT_DEPLOYED', `The contract is ${contract.record.status}, not deployed`, {
        status: contract.record.status,
      });
    }
    if (!contract.record.middlewareRegistered) {
      throw new AppError(
        'CONTRACT_NOT_REGISTERED',
        'The contract is not registered in the gateway (register-middleware)',
      );
    }
    const name = method.includes('%') ? safeDecode(method) : method;
    let abiMethod = contract.methods.get(name);
    if (!abiMethod) {
      abiMethod = findMethod(contract.record.abi, name);
      contract.methods.set(name, abiMethod);
    }
    trace.method = abiMethod.signature;
    // The key's method policy (by name or signature) and daily quota (docs/api.md, "API keys": refusals).
    await session.keyCall(principal, [abiMethod.name, abiMethod.signature]);
    return { contract, abiMethod, principal };
  }

  /**
   * Charges one call of `keyId` to the key's per-second budget (the JSON-RPC door's calls count as
   * gateway calls): its own `rateLimitPerSecond` when it has one (at most the service's), else
   * API_KEY_RATE_LIMIT.
   */
  chargeKey(keyId: string, perSecond?: number | null): Promise<void> {
    if (!perSecond) return this.keyLimit.consume(keyId);
    let limit = this.ownKeyLimits.get(perSecond);
    if (!limit) {
      limit = this.ownKeyLimit(perSecond);
      this.ownKeyLimits.set(perSecond, limit);
    }
    return limit.consume(keyId);
  }

  /** chargeKey, or null when no per-key limit is in force (nothing to count, nothing to wait for). */
  chargeKeyNow(keyId: string, perSecond?: number | null): Promise<void> | null {
    return !perSecond && !this.keyLimit.enabled ? null : this.chargeKey(keyId, perSecond);
  }

  /**
   * A block a client has seen (the JSON-RPC door relayed it): reads at the head are at least that
   * fresh from now on, so that a client reading after a receipt it was sent sees the receipt's block.
   */
  raiseHead(network: Network, block: number): void {
    this.reads.heads.raise(network, block);
  }

  /**
   * An eth_call of `data` to `to` at the head the service knows, through the read cache (one node
   * call per block and distinct call); at `latest`, uncached, while no head is known. `load` asks
   * the node at the block it is given (undefined: latest).
   */
  async readAtHead(
    network: Network,
    to: string,
    data: string,
    load: (block: number | undefined) => Promise<string>,
  ): Promise<string> {
    const block = this.reads.heads.head(network);
    return block === null
      ? this.reads.cache.readLatest(network, to, data, () => load(undefined))
      : this.reads.cache.read(network, block, to, data, () => load(block));
  }

  /**
   * readAtHead's answer when the read cache holds it at the head (`to` and `data` in lower case);
   * undefined when it must be asked (readAtHead then answers).
   */
  readAtHeadNow(network: Network, to: string, data: string): string | undefined {
    const block = this.reads.heads.head(network);
    const raw = block === null ? undefined : this.reads.cache.hit(network, block, to, data);
    if (raw !== undefined) this.immediate++;
    return raw;
  }

  /** The contract, cached once it is deployed and registered (it cannot change after that). */
  private async servedContract(contractId: string): Promise<ServedContract> {
    const cached = this.served.get(contractId);
    if (cached) return cached;
    const record = await this.contracts.require(contractId);
    const served: ServedContract = { record, iface: new Interface(record.abi as never[]), methods: new Map() };
    if (record.status === 'deployed' && record.middlewareRegistered) this.served.set(contractId, served);
    return served;
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new AppError('METHOD_NOT_FOUND', 'The method name is not valid', { method: s });
  }
}
