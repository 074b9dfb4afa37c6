// JSON-RPC calls to a dev chain over plain HTTP, for the tests and benchmarks that build chains.

interface RpcAnswer {
  id: number;
  result?: unknown;
  error?: { message: string };
}

/** A JSON-RPC batch over plain HTTP, answers matched by id. */
export async function rpcBatch(url: string, calls: Array<[string, unknown[]]>): Promise<unknown[]> {
  if (calls.length === 0) return [];
  const body = calls.map(([method, params], id) => ({ jsonrpc: '2.0', id, method, params }));
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answers = (await res.json()) as RpcAnswer[];
  const byId = new Map(answers.map((a) => [a.id, a]));
  return calls.map((_, id) => {
    const a = byId.get(id);
    if (!a || a.error) throw new Error(`${calls[id]![0]} failed: ${a?.error?.message ?? 'no answer'}`);
    return a.result;
  });
}

export const rpc = async (url: string, method: string, params: unknown[] = []): Promise<unknown> =>
  (await rpcBatch(url, [[method, params]]))[0];
