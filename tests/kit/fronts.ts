import { BEHIND_BESU_FRONTS } from './stack';

// Jest's globals are read here, not in stack.ts: the benches (bench/*.ts) import stack.ts from
// plain node, where `describe` and `it` do not exist.

/**
 * `describe` for behaviour the Besu-faithful fronts cannot change: the service's own rules, and
 * reads the fronts relay as the node answers them. It runs in the plain projects and is skipped in
 * the `besu` one, which runs again only what differs behind Besu (fees and gas prices, the node's
 * refusals and their words, receipts, validators, the node's authentication and WebSocket).
 */
export const describeAnyFront: jest.Describe = BEHIND_BESU_FRONTS ? describe.skip : describe;
/** `it` for one such test inside a block that otherwise runs behind the fronts too. */
export const itAnyFront: jest.It = BEHIND_BESU_FRONTS ? it.skip : it;
