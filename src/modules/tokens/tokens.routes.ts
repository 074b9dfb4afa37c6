import type { RestRoute } from '../../kernel/domain-manifest';

/** The tokens module's REST routes (docs/api.md, "Tokens"). */
export const TOKENS_ROUTES: readonly RestRoute[] = [
  {
    area: 'explorer',
    method: 'GET',
    path: '/address/{address}/token-transfers',
    field: 'Query.addressTokenTransfers',
    omitWhenNull: ['items[].batchIndex', 'items[].value', 'items[].tokenId'],
    auth: 'public',
    summary: 'Token transfers to or from an address, newest first',
  },
  {
    area: 'explorer',
    method: 'GET',
    path: '/address/{address}/token-balances',
    field: 'Query.addressTokenBalances',
    omitWhenNull: ['items[].tokenId'],
    auth: 'public',
    summary: 'Tokens held by an address',
  },
  {
    area: 'explorer',
    method: 'GET',
    path: '/tokens',
    field: 'Query.tokens',
    auth: 'public',
    summary: 'Tokens seen in the index, by type or name and symbol prefix',
  },
  {
    area: 'explorer',
    method: 'GET',
    path: '/token/{address}',
    field: 'Query.token',
    omitWhenNull: ['token'],
    auth: 'public',
    summary: 'A token: metadata, supply, holder and transfer counts',
  },
  {
    area: 'explorer',
    method: 'GET',
    path: '/token/{address}/holders',
    field: 'Query.tokenHolders',
    omitWhenNull: ['items[].tokenId'],
    auth: 'public',
    summary: 'Holders of a token, by value descending',
  },
  {
    area: 'explorer',
    method: 'GET',
    path: '/token/{address}/transfers',
    field: 'Query.tokenTransfers',
    omitWhenNull: ['items[].batchIndex', 'items[].value', 'items[].tokenId'],
    auth: 'public',
    summary: 'Transfers of a token, newest first',
  },
];
