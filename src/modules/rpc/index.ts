/** What the JSON-RPC door offers (docs/api.md, "JSON-RPC door"). */
export { RpcDoorService, type RpcAnswer } from './rpc-door.service';
export { MAX_BATCH as RPC_MAX_BATCH } from './rpc-methods';
