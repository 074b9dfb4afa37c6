import type { Credentials } from '../auth/credentials';

/** `/rpc/{network}` and `/rpc/{network}/{apiKey}` (docs/api.md, "JSON-RPC door"). */
const RPC_PATH = /^\/rpc\/([^/]+)(?:\/([^/]+))?\/?$/;

/** The network and the key of a door path, if `path` is one. */
export function rpcPathOf(path: string): { network: string; apiKey?: string } | undefined {
  if (!path.startsWith('/rpc/')) return undefined;
  const m = RPC_PATH.exec(path);
  if (!m) return undefined;
  let apiKey: string | undefined;
  try {
    apiKey = m[2] === undefined ? undefined : decodeURIComponent(m[2]);
  } catch {
    apiKey = m[2];
  }
  return { network: m[1]!, apiKey };
}

/** A path as it may be logged: a door path's key is never written (docs/api.md, "JSON-RPC door"). */
export function loggablePath(path: string): string {
  if (!path.startsWith('/rpc/')) return path;
  // Whatever follows the network may be a key, even on a path the door does not serve.
  const cut = path.indexOf('/', '/rpc/'.length);
  return cut === -1 || cut === path.length - 1 ? path : `${path.slice(0, cut)}/[redacted]`;
}

/** The credentials of a door request: the key in its path counts as an `x-api-key` header would. */
export function withPathKey(credentials: Credentials, path: string): Credentials {
  const key = rpcPathOf(path)?.apiKey;
  return key === undefined || credentials.apiKey !== undefined ? credentials : { ...credentials, apiKey: key };
}
