/**
 * Tokens (docs/api.md, "Tokens"): the transfer items of ERC-20/721/1155 logs, written by the
 * explorer's indexer in the block's transaction, and the queries over them. The explorer builds
 * the TokensService and hosts this manifest in its own.
 */
import { domainManifest } from '../../kernel/domain-manifest';
import { TokensResolver } from './tokens.resolver';
import { TOKENS_ROUTES } from './tokens.routes';
import type { TokensService } from './tokens.service';

export { transfersOfBlocks, transfersOfLog, type TokenTransferRow, type TokenType } from './token-logs';
export { writeTokenTransfers, forgetTokenTransfers } from './token-store';
export { TokensService, type TokenTransfersSubscription, type TransferPosition } from './tokens.service';
export type { NodeCall } from './token-metadata';
export { TokenTransfer } from './tokens.types';

/** The tokens domain, hosted by the explorer (whose service builds the TokensService). */
export const TOKENS_MODULE = domainManifest<{ explorer: { tokens: TokensService } }>({
  name: 'tokens',
  entities: [],
  resolvers: [{ type: TokensResolver, build: (s) => new TokensResolver(s.explorer.tokens) }],
  routes: TOKENS_ROUTES,
});
