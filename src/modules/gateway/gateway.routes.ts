import type { RestRoute } from '../../kernel/domain-manifest';

/** The gateway module's REST routes (docs/api.md, "Gateway"). */
export const GATEWAY_ROUTES: readonly RestRoute[] = [
  {
    area: 'devportal',
    method: 'POST',
    path: '/contracts/{id}/query/{method}',
    field: 'Mutation.queryContract',
    auth: 'api-key',
    direct: true,
    asHeaders: {
      blockNumber: {
        name: 'x-block-number',
        description:
          'Block the answer reflects (decimal): the head this service knows, or a later block it named in an ' +
          'invoke answer. Absent when the head was not known and the call ran at the node’s latest block.',
      },
    },
    summary: 'Read a contract function (eth_call); scope read',
  },
  {
    area: 'devportal',
    method: 'POST',
    path: '/contracts/{id}/invoke/{method}',
    field: 'Mutation.invokeContract',
    auth: 'api-key',
    direct: true,
    // docs/api.md, "Gateway": revertReason only on a reverted transaction.
    omitWhenNull: ['revertReason'],
    summary: 'Send a transaction to a contract function; scope write',
  },
];
