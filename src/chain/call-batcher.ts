import type { JsonRpcPayload } from 'ethers';
import type { JsonRpcAnswer } from './rpc-transport';

/** Sends one payload or a batch and returns the node's answers (the transport's `send`). */
export type SendPayload = (payload: JsonRpcPayload | JsonRpcPayload[]) => Promise<JsonRpcAnswer[]>;

/** A call the node left out of its answer (JSON-RPC 2.0 requires an answer for every call). */
export class MissingBatchAnswerError extends Error {
  readonly code = 'SERVER_ERROR';
  constructor() {
    super('the node answered without this call');
    this.name = 'MissingBatchAnswerError';
  }
}

interface Waiting {
  method: string;
  params: unknown[];
  resolve: (answer: JsonRpcAnswer) => void;
  reject: (error: unknown) => void;
}

/**
 * Read calls (eth_call) made in one turn of the event loop, sent to the node together: one JSON-RPC
 * batch of at most `maxBatch` calls per HTTP request, at the end of the turn (Node's check phase,
 * after every request read in that turn has made its calls), instead of a request each. A lone
 * call still goes alone, in the same turn. Under load this saves the node and the service an HTTP
 * exchange per call, which cost more than the call itself on a fast node (BENCHMARKS.md, "Cold
 * reads: calls written word by word and sent together").
 *
 * Only calls of the same group (the gateway's: the calling developer) share a batch. Besu executes a
 * batch's entries one after another, so a slow call delays the calls batched after it; a
 * developer's expensive view calls then delay only that developer's own reads.
 *
 * Each call gets its own answer or error object, as if sent alone. A node that answers a batch
 * with one error instead of a list (Besu's `--rpc-http-max-batch-size`: -32005 "Number of requests
 * exceeds max batch size") takes its calls one by one from then on: they are sent again alone, and
 * `onRefused` is told once. A failed HTTP exchange fails each of its calls, for the caller's retry.
 * Only reads go through here: a send is never batched (its outcome must be its own).
 */
export class CallBatcher {
  /** This turn's calls, by group, in the order they were made. */
  private queue = new Map<string, Waiting[]>();
  private refused = false;

  constructor(
    private readonly send: SendPayload,
    private readonly maxBatch: number,
    private readonly onRefused: (batchSize: number, error: { code?: number; message?: string }) => void,
  ) {}

  /** Whether calls are batched (more than one a request allowed, and the node has not refused a batch). */
  get batching(): boolean {
    return this.maxBatch > 1 && !this.refused;
  }

  /** The node's answer to one call: its result or its error object. Calls of one `group` may share a batch. */
  call(method: string, params: unknown[], group = ''): Promise<JsonRpcAnswer> {
    if (!this.batching) return this.alone(method, params);
    return new Promise((resolve, reject) => {
      if (this.queue.size === 0) setImmediate(() => this.flush());
      const waiting = this.queue.get(group);
      const call = { method, params, resolve, reject };
      if (waiting) waiting.push(call);
      else this.queue.set(group, [call]);
    });
  }

  private async alone(method: string, params: unknown[]): Promise<JsonRpcAnswer> {
    const [answer] = await this.send({ jsonrpc: '2.0', id: 1, method, params });
    if (!answer) throw new MissingBatchAnswerError();
    return answer;
  }

  private flush(): void {
    const queue = this.queue;
    this.queue = new Map();
    for (const calls of queue.values()) {
      for (let i = 0; i < calls.length; i += this.maxBatch) void this.sendBatch(calls.slice(i, i + this.maxBatch));
    }
  }

  private eachAlone(calls: Waiting[]): void {
    for (const c of calls) this.alone(c.method, c.params).then(c.resolve, c.reject);
  }

  private async sendBatch(calls: Waiting[]): Promise<void> {
    if (calls.length === 1 || this.refused) return this.eachAlone(calls);
    let answers: JsonRpcAnswer[];
    try {
      // Ids are positions in this batch: the answers may come in any order (JSON-RPC 2.0, 6).
      answers = await this.send(
        calls.map((c, i) => ({ jsonrpc: '2.0', id: i + 1, method: c.method, params: c.params })),
      );
    } catch (error) {
      for (const c of calls) c.reject(error);
      return;
    }
    const byId = new Map<unknown, JsonRpcAnswer>();
    // The first answer for an id counts; entries that are not objects answer nothing.
    for (const answer of answers) {
      if (answer && typeof answer === 'object' && !byId.has(answer.id)) byId.set(answer.id, answer);
    }
    // A refusal of the whole batch: one error object that answers no call (Besu sends id null).
    const refusal = answers.length === 1 && (answers[0]?.id ?? null) === null ? answers[0] : undefined;
    if (refusal && 'error' in refusal) {
      if (!this.refused) {
        this.refused = true;
        this.onRefused(calls.length, refusal.error);
      }
      return this.eachAlone(calls);
    }
    calls.forEach((c, i) => {
      const answer = byId.get(i + 1);
      if (answer) c.resolve({ ...answer, id: 1 });
      else c.reject(new MissingBatchAnswerError());
    });
  }
}
