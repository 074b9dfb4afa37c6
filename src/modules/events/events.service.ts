import { Repeater } from '@graphql-yoga/subscription';
import type { Session } from '../../auth/session';
import {
  DecodeBudget,
  decodeEventAsync,
  findEvent,
  isTooLarge,
  listEvents,
  type AbiEvent,
  type DecodedEvent,
} from '../../chain/abi';
import type { Network } from '../../kernel/network';
import { AppError, isAppError } from '../../kernel/errors/app-error';
import { checksum } from '../../kernel/address';
import { decodeCursorWith, encodeCursor, pageLimit } from '../../kernel/pagination';
import type { Logger } from '../../kernel/logger';
import type { ContractEntity, ContractService } from '../contracts';
import type { ExplorerService, LogPosition, StoredContractLog } from '../explorer';
import type { ContractEventItem, ContractEventPage } from './events.types';

/** Arguments of the contract events list. */
export interface ContractEventsArgs {
  event?: string | null;
  fromBlock?: number | null;
  toBlock?: number | null;
  limit?: number | null;
  cursor?: string | null;
}

/** What a contractEvents subscription hands its feed: the caller's session and the field's arguments. */
export interface ContractEventsSubscription {
  session: Session;
  contractId: string;
  event?: string | null;
  fromBlock?: number | null;
}

/** The logs of one contract that a request is about: where, and which of its events. */
interface EventSource {
  contractId: string;
  network: Network;
  address: string;
  events: AbiEvent[];
  /** The event filter as written in cursors: its signature, or empty for all events. */
  key: string;
}

/** Logs read per page by the subscription's loop (and its largest buffer). */
const FOLLOW_PAGE = 100;
/** Largest page for internal readers (webhook delivery). */
const MAX_INTERNAL_PAGE = 1000;
/** How often a subscription checks its credentials again (a revoked key or a logout ends it). */
const RECHECK_MS = 5_000;
/** Largest log index PostgreSQL's integer column holds: "after every log of the block". */
const END_OF_BLOCK = 2_147_483_647;

/** A block number argument: an integer from 0 (GraphQL's Int has already refused non-integers). */
function blockArg(field: string, value: number | null | undefined): number | null {
  if (value === null || value === undefined) return null;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new AppError('VALIDATION_FAILED', `${field} must be a block number (an integer from 0)`, { field });
  }
  return value;
}

/** An error that ends a subscription: graphql-ws reports its message and `extensions` only. */
function streamError(err: AppError): Error {
  return Object.assign(err, { extensions: { code: err.code, ...(err.details ? { details: err.details } : {}) } });
}

/** `item` shown undecoded: `decoded: false`, no args, the raw log data. */
function undecoded(item: ContractEventItem, data: string): ContractEventItem {
  return { ...item, args: {}, decoded: false, data };
}

/**
 * Decoded events of portal contracts, read from the explorer's block index: the paged list, the
 * subscription that replays them and then follows the index, and `eventsAfter` for other modules.
 */
export class ContractEventsService {
  private readonly log: Logger;

  constructor(
    private readonly contracts: ContractService,
    private readonly explorer: ExplorerService,
    logger: Logger,
  ) {
    this.log = logger.child({ component: 'contract-events' });
  }

  /** A page of the contract's events, oldest first (the owner's token, or an API key with `read`). */
  async list(session: Session, contractId: string, args: ContractEventsArgs): Promise<ContractEventPage> {
    const limit = pageLimit(args.limit);
    const fromBlock = blockArg('fromBlock', args.fromBlock);
    const toBlock = blockArg('toBlock', args.toBlock);
    if (fromBlock !== null && toBlock !== null && fromBlock > toBlock) {
      throw new AppError('VALIDATION_FAILED', 'fromBlock must not be greater than toBlock', { field: 'fromBlock' });
    }
    const { source } = await this.authorized(session, contractId, args.event);
    const position = decodeCursorWith(args.cursor, (p) =>
      p.list === 'events' &&
      p.contract === source.contractId &&
      p.event === source.key &&
      Number.isSafeInteger(p.block) &&
      (p.block as number) >= 0 &&
      Number.isInteger(p.log) &&
      (p.log as number) >= 0 &&
      (p.log as number) <= END_OF_BLOCK
        ? { blockNumber: p.block as number, logIndex: p.log as number }
        : undefined,
    );
    const start = fromBlock !== null ? { blockNumber: fromBlock - 1, logIndex: END_OF_BLOCK } : null;
    const after = position && (!start || position.blockNumber >= fromBlock!) ? position : start;
    const page = await this.read(source, after, toBlock, limit);
    const last = page.last;
    return {
      items: page.items,
      nextCursor:
        page.full && last
          ? encodeCursor({
              list: 'events',
              contract: source.contractId,
              event: source.key,
              block: last.blockNumber,
              log: last.logIndex,
            })
          : null,
    };
  }

  /**
   * The contract's events after `after` (from the start of the index when null), oldest first, at
   * most `limit`; `event` a name or signature as in the list. No authorization: for other modules.
   * A contract that is not deployed has none.
   */
  async eventsAfter(
    contractId: string,
    event: string | null,
    after: { blockNumber: number; logIndex: number } | null,
    limit: number,
  ): Promise<ContractEventItem[]> {
    const contract = await this.contracts.require(contractId);
    if (contract.status !== 'deployed' || !contract.address) return [];
    const source = this.sourceOf(contract, event);
    const size = Math.max(1, Math.min(MAX_INTERNAL_PAGE, Math.floor(limit)));
    const items: ContractEventItem[] = [];
    let position = after;
    // Logs whose topic matches but that do not decode are skipped: read on until the page is full or the index ends.
    for (;;) {
      const page = await this.read(source, position, null, size - items.length);
      items.push(...page.items);
      if (!page.full || items.length >= size || !page.last) return items;
      position = page.last;
    }
  }

  /**
   * The subscription's feed: every matching event from `fromBlock` (default: the next block the
   * index takes in), then the new ones as the index grows. A loop reads pages of the index after
   * the last event delivered and hands them over one at a time, waiting for the subscriber to take
   * each (so a slow subscriber is paced by the database, not buffered); when it has caught up it
   * waits until the index takes in more blocks.
   */
  follow(request: ContractEventsSubscription): AsyncIterableIterator<ContractEventItem> {
    return new Repeater<ContractEventItem>(async (push, stop) => {
      let stopped = false;
      void stop.then(() => (stopped = true));
      try {
        const fromBlock = blockArg('fromBlock', request.fromBlock);
        const { source, contract } = await this.authorized(request.session, request.contractId, request.event);
        const { runtime } = this.explorer;
        let after: LogPosition | null;
        if (fromBlock !== null) {
          after = { blockNumber: fromBlock - 1, logIndex: END_OF_BLOCK };
        } else {
          const state = await this.explorer.index.state(source.network);
          after = state ? { blockNumber: state.lastBlock, logIndex: END_OF_BLOCK } : null;
        }
        let checkedAt = Date.now();
        while (!stopped) {
          if (Date.now() - checkedAt >= RECHECK_MS) {
            await request.session.rechecked().readerOf(contract);
            checkedAt = Date.now();
          }
          // Read before the page: a batch committed while the page is read wakes the wait below at once.
          const version = runtime.indexedVersion(source.network);
          const page = await this.read(source, after, null, FOLLOW_PAGE);
          for (const item of page.items) {
            if (stopped) return;
            await push(item);
          }
          if (page.last) after = page.last;
          if (page.full) continue;
          await runtime.waitForIndexed(source.network, version, stop);
        }
      } catch (err) {
        if (isAppError(err)) {
          stop(streamError(err));
          return;
        }
        this.log.error({ err, contractId: request.contractId }, 'A contract events subscription failed');
        stop(
          streamError(
            new AppError(
              'SERVICE_UNAVAILABLE',
              'The events could not be read; subscribe again with fromBlock after the last event received',
            ),
          ),
        );
      }
    });
  }

  /** Checks the caller (401 before 404), the contract, the caller's right to read it, its deployment and the event. */
  private async authorized(
    session: Session,
    contractId: string,
    event: string | null | undefined,
  ): Promise<{ source: EventSource; contract: ContractEntity }> {
    await session.contractReader();
    const contract = await this.contracts.require(contractId);
    await session.readerOf(contract);
    if (contract.status !== 'deployed' || !contract.address) {
      throw new AppError('CONTRACT_NOT_DEPLOYED', `The contract is ${contract.status}, not deployed`, {
        status: contract.status,
      });
    }
    return { source: this.sourceOf(contract, event ?? null), contract };
  }

  private sourceOf(contract: ContractEntity, event: string | null): EventSource {
    const declared = listEvents(contract.abi);
    const chosen = event !== null && event !== '' ? [findEvent(declared, event)] : declared;
    return {
      contractId: contract.id,
      network: contract.network,
      address: checksum(contract.address!),
      events: chosen,
      key: event !== null && event !== '' ? chosen[0]!.signature : '',
    };
  }

  /**
   * One page of the index: the decoded events, the position of the last log read (the next page
   * starts after it) and whether the page was full (there may be more).
   */
  private async read(
    source: EventSource,
    after: LogPosition | null,
    toBlock: number | null,
    limit: number,
  ): Promise<{ items: ContractEventItem[]; last: LogPosition | null; full: boolean }> {
    if (source.events.length === 0) return { items: [], last: null, full: false };
    const byTopic = new Map<string, AbiEvent>(source.events.map((e) => [e.topic, e]));
    const logs = await this.explorer.index.contractLogs(
      source.network,
      source.address,
      [...byTopic.keys()],
      after,
      toBlock,
      limit,
    );
    const items: ContractEventItem[] = [];
    // A page holds 100,000 decoded elements in all; later events are given undecoded (docs/api.md "Hostile chain data").
    const budget = new DecodeBudget();
    for (const log of logs) {
      const item = await this.decode(source, byTopic, log);
      if (item && item.decoded !== false && !budget.take(item.args)) items.push(undecoded(item, log.data));
      else if (item) items.push(item);
    }
    const tail = logs[logs.length - 1];
    return {
      items,
      last: tail ? { blockNumber: tail.blockNumber, logIndex: tail.logIndex } : null,
      full: logs.length === limit,
    };
  }

  private async decode(
    source: EventSource,
    byTopic: Map<string, AbiEvent>,
    log: StoredContractLog,
  ): Promise<ContractEventItem | null> {
    const event = byTopic.get(log.topics[0] ?? '');
    if (!event) return null;
    let decoded: DecodedEvent | null;
    try {
      // A log with the event's topic that does not decode with its types is not that event (another layout of indexed topics).
      decoded = await decodeEventAsync(event, log.topics, log.data);
    } catch (e) {
      if (!isTooLarge(e)) throw e;
      // Over the decoder's bounds (docs/api.md "Hostile chain data"): listed, pushed and delivered undecoded.
      return undecoded(
        {
          event: event.name,
          signature: event.signature,
          args: {},
          address: source.address,
          blockNumber: log.blockNumber,
          blockHash: log.blockHash,
          transactionHash: log.transactionHash,
          logIndex: log.logIndex,
          timestamp: log.timestamp,
        },
        log.data,
      );
    }
    if (!decoded) return null;
    return {
      event: decoded.name,
      signature: decoded.signature,
      args: decoded.args,
      address: source.address,
      blockNumber: log.blockNumber,
      blockHash: log.blockHash,
      transactionHash: log.transactionHash,
      logIndex: log.logIndex,
      timestamp: log.timestamp,
    };
  }
}
