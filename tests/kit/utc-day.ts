/**
 * Daily caps and quotas count per UTC day (docs/api.md, "API keys"): a test body that runs across
 * UTC midnight sees its count start again halfway, and would fail for a reason of the calendar's.
 * The body runs once more when it failed and the UTC day changed while it ran; the body must make
 * its own key (and read any nonce it needs) so that the second run starts clean.
 */
export async function onOneUtcDay<T>(body: () => Promise<T>): Promise<T> {
  const day = utcDay();
  try {
    return await body();
  } catch (e) {
    if (utcDay() === day) throw e;
    return body();
  }
}

function utcDay(): string {
  return new Date().toISOString().slice(0, 10);
}
