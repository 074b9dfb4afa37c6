import type { FormattedExecutionResult } from 'graphql';

/** Each shared payload's JSON, made once for every subscriber that is sent it. */
const payloadTexts = new WeakMap<object, string>();

/** `payload`'s JSON; the same object, handed to many subscribers, is serialised once. */
export function payloadJson(payload: FormattedExecutionResult): string {
  let text = payloadTexts.get(payload);
  if (text === undefined) {
    text = JSON.stringify(payload);
    payloadTexts.set(payload, text);
  }
  return text;
}

/**
 * graphql-ws's `next` message for subscription `id` around a payload's JSON: the same bytes as
 * graphql-ws's own `JSON.stringify({ id, type: 'next', payload })`.
 */
export function nextFrame(id: string, payload: string): string {
  return `{"id":${JSON.stringify(id)},"type":"next","payload":${payload}}`;
}
