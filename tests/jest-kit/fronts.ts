import { BEHIND_BESU_FRONTS } from '../kit/stack';

// Test-runner helpers: jest's globals, so kept out of tests/kit (which the benchmarks also load,
// compiled without jest by `npm run build`).

/**
 * `describe` for behaviour the Besu-faithful fronts cannot change: the service's own rules, and
 * reads the fronts relay as the node answers them. It runs in the plain projects and is skipped in
 * the `besu` one, which runs again only what differs behind Besu (fees and gas prices, the node's
 * refusals and their words, receipts, validators, the node's authentication and WebSocket).
 */
export const describeAnyFront: jest.Describe = BEHIND_BESU_FRONTS ? describe.skip : describe;
/** `it` for one such test inside a block that otherwise runs behind the fronts too. */
export const itAnyFront: jest.It = BEHIND_BESU_FRONTS ? it.skip : it;
