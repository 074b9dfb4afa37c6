/** What the JSON-RPC door offers (docs/api.md, "JSON-RPC door"). */
export {
  RpcDoorService,
  type RpcAnswer,
  type RpcSocket,
  type RpcSocketPeer,
  type JsonRpcNotification,
} from './rpc-door.service';
export { RpcSubscriptions } from './rpc-subscriptions';
export { MAX_BATCH as RPC_MAX_BATCH } from './rpc-methods';
