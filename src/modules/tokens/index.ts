/**
 * Tokens (docs/api.md, "Tokens"): the transfer items of ERC-20/721/1155 logs, written by the
 * explorer's indexer in the block's transaction.
 */
export { transfersOfLog, type TokenTransferRow, type TokenType } from './token-logs';
export { writeTokenTransfers, forgetTokenTransfers } from './token-store';
