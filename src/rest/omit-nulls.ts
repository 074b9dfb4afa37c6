/**
 * Leaves out of a REST answer the parts docs/api.md writes as optional (`block?`, `method?`) when they
 * are null. GraphQL answers keep them as null, as GraphQL clients expect every selected field.
 *
 * A path names a field by its keys, dot-separated; `[]` after a key means each item of that list
 * (`activity[].method`). A path whose parent is absent or not an object leaves nothing to do.
 */
export function omitNulls(value: unknown, paths: readonly string[]): void {
  for (const path of paths) omitPath(value, path.split('.'));
}

function omitPath(value: unknown, segments: string[]): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return;
  const record = value as Record<string, unknown>;
  const [head, ...rest] = segments as [string, ...string[]];
  const each = head.endsWith('[]');
  const key = each ? head.slice(0, -2) : head;
  if (rest.length === 0) {
    if (!each && record[key] === null) delete record[key];
    return;
  }
  const child = record[key];
  if (each) {
    if (Array.isArray(child)) for (const item of child) omitPath(item, rest);
  } else {
    omitPath(child, rest);
  }
}
