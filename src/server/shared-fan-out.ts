import type { DocumentNode, ExecutionResult, FormattedExecutionResult } from 'graphql';
import type { WebSocket } from 'ws';
import { AppError } from '../kernel/errors/app-error';
import { nextFrame, payloadJson } from './next-frames';

/**
 * Results a subscriber may have waiting while its socket does not take its frames: one more ends
 * its subscription with RATE_LIMITED (docs/api.md, "Live blocks": 256 blocks behind).
 */
export const MAX_BEHIND = 256;

/** The error that ends a subscriber that fell MAX_BEHIND results behind (docs/api.md, "Live blocks"). */
function behindError(): AppError {
  return Object.assign(
    new AppError(
      'RATE_LIMITED',
      `The subscriber fell more than ${MAX_BEHIND} blocks behind and was dropped; subscribe again`,
    ),
    // graphql-ws reports an error of the stream with its message and `extensions` only.
    { extensions: { code: 'RATE_LIMITED' } },
  );
}

const DONE: IteratorResult<ExecutionResult> = Object.freeze({ value: undefined, done: true });

/** Where one subscriber's `next` messages go. */
export interface FanOutTarget {
  socket: WebSocket;
  /** The subscription's id in graphql-ws's protocol. */
  id: string;
  /** The payload of a result for this subscriber, as graphql-ws's onNext gives it; throws to end it. */
  prepare(result: ExecutionResult): FormattedExecutionResult;
}

/**
 * One subscriber of a group: the stream graphql-ws is handed. It yields nothing: its frames are
 * written by the group; its one `next()` settles when the subscription ends (graphql-ws then sends
 * `complete`) or fails (graphql-ws sends `error`); `return()` (the client's `complete`, the
 * socket's close) leaves the group, and nothing more is sent.
 */
class Member implements AsyncGenerator<ExecutionResult> {
  /** Results not yet written while the last frame is (shared objects: a few bytes each). */
  private readonly waiting: ExecutionResult[] = [];
  private writing = false;
  private ended = false;
  /** The results ended: `complete` once the waiting ones are written. */
  private finishing = false;
  private settle!: { resolve: (r: IteratorResult<ExecutionResult>) => void; reject: (e: unknown) => void };
  private readonly settled = new Promise<IteratorResult<ExecutionResult>>((resolve, reject) => {
    this.settle = { resolve, reject };
  });

  constructor(
    private readonly target: FanOutTarget,
    private readonly leave: (m: Member) => void,
  ) {
    // graphql-ws may never ask for next() (a subscription completed at once): no unhandled rejection.
    this.settled.catch(() => undefined);
  }

  /** A result for this subscriber: written at once when its socket has taken the last frame, else queued. */
  deliver(result: ExecutionResult): void {
    if (this.ended || this.finishing) return;
    if (!this.writing) return this.write(result);
    if (this.waiting.length >= MAX_BEHIND) return this.fail(behindError());
    this.waiting.push(result);
  }

  private write(result: ExecutionResult): void {
    let frame: string;
    try {
      frame = nextFrame(this.target.id, payloadJson(this.target.prepare(result)));
    } catch (err) {
      return this.fail(err);
    }
    const { socket } = this.target;
    // As graphql-ws's ws adapter: nothing is sent once the socket is not open (its close ends the subscription).
    if (socket.readyState !== socket.OPEN) return;
    this.writing = true;
    socket.send(frame, (err) => {
      this.writing = false;
      if (err) return this.fail(err);
      if (this.ended) return;
      const next = this.waiting.shift();
      if (next !== undefined) this.write(next);
      else if (this.finishing) this.end();
    });
  }

  /** The group's results ended: graphql-ws sends `complete` once this subscriber's are written. */
  finish(): void {
    if (this.ended) return;
    this.finishing = true;
    if (!this.writing && this.waiting.length === 0) this.end();
  }

  private end(): void {
    this.ended = true;
    this.settle.resolve(DONE);
  }

  fail(err: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.waiting.length = 0;
    this.leave(this);
    this.settle.reject(err);
  }

  next(): Promise<IteratorResult<ExecutionResult>> {
    return this.settled;
  }

  return(): Promise<IteratorResult<ExecutionResult>> {
    if (!this.ended) {
      this.ended = true;
      this.waiting.length = 0;
      this.leave(this);
      this.settle.resolve(DONE);
    }
    return Promise.resolve(DONE);
  }

  async throw(err: unknown): Promise<IteratorResult<ExecutionResult>> {
    await this.return();
    throw err;
  }

  [Symbol.asyncIterator](): AsyncGenerator<ExecutionResult> {
    return this;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.return();
  }
}

/** The subscribers of one document and variables, fed by one stream of shared results. */
interface Group {
  members: Set<Member>;
  source: AsyncGenerator<ExecutionResult>;
}

/**
 * Subscriptions whose results are the same for every subscriber of a document and variables
 * (shared-subscription.ts), fanned out: one stream of results per document and variables, read by
 * one loop, and each result written to every subscriber's socket in one synchronous pass, its
 * payload serialised once and the subscriber's id spliced around it (next-frames.ts). Each
 * subscriber keeps its order, its revocation (the stream it is handed is wrapped as any other),
 * and its bound: while its socket has not taken its last frame its results wait, and one past
 * MAX_BEHIND ends it with RATE_LIMITED, so a slow subscriber holds back no other.
 */
export class SharedFanOut {
  private readonly groups = new WeakMap<DocumentNode, Map<string, Group>>();

  /**
   * The stream graphql-ws is handed for a subscriber whose own results would be `stream` (of
   * `document` and `variables`): it joins the group of the same document and variables, and
   * `stream` either feeds a new group or, when one already runs, is ended at once.
   */
  join(stream: AsyncGenerator<ExecutionResult>, document: DocumentNode, variables: string, target: FanOutTarget) {
    let byVariables = this.groups.get(document);
    if (!byVariables) {
      byVariables = new Map();
      this.groups.set(document, byVariables);
    }
    const found = byVariables.get(variables);
    const group = found ?? { members: new Set<Member>(), source: stream };
    if (found) void stream.return(undefined).catch(() => undefined);
    const groups = byVariables;
    const member = new Member(target, (m) => {
      group.members.delete(m);
      if (group.members.size > 0) return;
      // The last one left: the group ends, and a later subscriber starts another.
      if (groups.get(variables) === group) groups.delete(variables);
      void group.source.return(undefined).catch(() => undefined);
    });
    group.members.add(member);
    if (!found) {
      byVariables.set(variables, group);
      void this.run(group, () => {
        if (groups.get(variables) === group) groups.delete(variables);
      });
    }
    return member;
  }

  private async run(group: Group, forget: () => void): Promise<void> {
    try {
      for (;;) {
        const r = await group.source.next();
        if (r.done) break;
        // A member that fails leaves the set while it is walked: a Set skips it, as it should.
        for (const member of group.members) member.deliver(r.value);
      }
      forget();
      for (const member of group.members) member.finish();
    } catch (err) {
      forget();
      for (const member of group.members) member.fail(err);
    }
  }
}
