import type http from 'node:http';
import type { Step } from './step';

/** How long in-flight requests may take to finish once a stop begins, before their sockets are cut. */
export const DRAIN_GRACE_MS = 10_000;
/** How often idle keep-alive sockets are closed while draining. */
const IDLE_SWEEP_MS = 100;

export interface HttpDrain {
  /** Step: while draining, each answer closes its connection after it is sent (`Connection: close`). */
  step: Step;
  /**
   * Stops accepting connections and resolves once every connection has ended: idle keep-alive
   * sockets are closed at once and as they become idle, busy ones after their answer. After
   * `graceMs`, the HTTP connections still open are cut and `cutOthers` is called (for the
   * upgraded sockets, which Node's HTTP server no longer tracks).
   */
  drain(opts?: { graceMs?: number; cutOthers?: () => void }): Promise<void>;
}

/**
 * A graceful stop of an HTTP server that costs nothing per request or connection until it starts:
 * Node's own connection tracking (`close`, `closeIdleConnections`, `closeAllConnections`), no
 * listener of ours on sockets or responses. Apollo's drain plugin, used before, listened to every
 * socket's `close` and every response's `finish`; under a sustained load of keep-alive requests a
 * listener of its own on each socket's `close` was enough to make about two service processes in
 * five promote several times more of the young generation, for about 45% more CPU per request
 * (BENCHMARKS.md, "A stop that listens to nothing").
 */
export function httpDrain(server: http.Server): HttpDrain {
  let draining = false;
  return {
    step: (_req, res, next) => {
      if (draining) res.setHeader('connection', 'close');
      next();
    },
    async drain({ graceMs = DRAIN_GRACE_MS, cutOthers }: { graceMs?: number; cutOthers?: () => void } = {}) {
      draining = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // close() closes the sockets idle now (Node ≥ 19); these close the ones idle later.
      const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
      const cut = setTimeout(() => {
        server.closeAllConnections();
        cutOthers?.();
      }, graceMs);
      try {
        await closed;
      } finally {
        clearInterval(sweep);
        clearTimeout(cut);
      }
    },
  };
}
