/**
 * Tokens (docs/api.md, "Tokens"): the transfer items of ERC-20/721/1155 logs, written by the
 * explorer's indexer in the block's transaction, and the queries over them. The explorer builds
 * the TokensService and offers its resolver with its own.
 */
export { transfersOfBlocks, transfersOfLog, type TokenTransferRow, type TokenType } from './token-logs';
export { writeTokenTransfers, forgetTokenTransfers } from './token-store';
export { TokensService, type TokenTransfersSubscription, type TransferPosition } from './tokens.service';
export type { NodeCall } from './token-metadata';
export { TokensResolver } from './tokens.resolver';
export { TokenTransfer } from './tokens.types';
