import type http from 'node:http';

/** One step of the edge, in express's middleware shape: it answers, or passes the request on. */
export type Step = (req: http.IncomingMessage, res: http.ServerResponse, next: (err?: unknown) => void) => void;

/** The path of a request, without its query string. */
export function pathOf(req: http.IncomingMessage): string {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** Runs `steps` in order, then `last`: the edge read top to bottom. */
export function inOrder(
  steps: Step[],
  last: (req: http.IncomingMessage, res: http.ServerResponse) => void,
): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  return steps.reduceRight<(req: http.IncomingMessage, res: http.ServerResponse) => void>(
    (rest, step) => (req, res) => step(req, res, () => rest(req, res)),
    last,
  );
}
