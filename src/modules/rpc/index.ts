/** What the JSON-RPC door offers (docs/api.md, "JSON-RPC door"). */
import { domainManifest } from '../../kernel/domain-manifest';

export {
  RpcDoorService,
  type RpcAnswer,
  type RpcSocket,
  type RpcSocketPeer,
  type JsonRpcNotification,
} from './rpc-door.service';
export { RpcSubscriptions } from './rpc-subscriptions';
export { MAX_BATCH as RPC_MAX_BATCH } from './rpc-methods';

/**
 * The JSON-RPC door: served at its own paths by the HTTP edge (src/server/rpc-http.ts,
 * rpc-ws.ts), not through the schema, so it adds no entity, resolver or REST route.
 */
export const RPC_MODULE = domainManifest({
  name: 'rpc',
  entities: [],
  resolvers: [],
  routes: [],
});
