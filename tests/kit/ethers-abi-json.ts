import { getAddress, hexlify, type BytesLike, type FunctionFragment, type ParamType, type Result } from 'ethers';

/**
 * The reference the ABI decoders are held to: what ethers' own decoder gives, mapped to the JSON of
 * docs/api.md, "Gateway", with ethers' helpers (getAddress, hexlify) and nothing of src/chain/abi, so
 * the one formatter there (abi-json.ts) is checked against an independent reading.
 */

/**
 * ethers' decoded return values → the `result` of a query: no output → null, one → that value,
 * several → an object keyed by output names (an array when any output is unnamed).
 */
export function decodeResult(fragment: FunctionFragment, result: Result): unknown {
  const outputs = fragment.outputs;
  if (outputs.length === 0) return null;
  if (outputs.length === 1) return toJsonValue(outputs[0], result[0]);
  return composite(outputs, (i) => result[i]);
}

/**
 * One ABI value → JSON: integers as decimal strings, addresses checksummed, bytes as lowercase 0x hex,
 * tuples as objects keyed by component names (arrays when unnamed), arrays as arrays.
 */
export function toJsonValue(param: ParamType, value: unknown): unknown {
  if (param.isArray()) {
    if (!Array.isArray(value)) throw new TypeError(`expected an array for ${param.format('sighash')}`);
    return value.map((item) => toJsonValue(param.arrayChildren, item));
  }
  if (param.isTuple()) {
    const components = param.components;
    if (Array.isArray(value)) return composite(components, (i) => value[i]);
    if (value !== null && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      return composite(components, (i) => record[components[i].name]);
    }
    throw new TypeError(`expected a tuple for ${param.format('sighash')}`);
  }
  const type = param.baseType;
  if (/^u?int[0-9]+$/.test(type)) return BigInt(value as bigint | number | string).toString();
  if (type === 'address') return getAddress(String(value));
  if (type === 'bool') return Boolean(value);
  if (type === 'string') return String(value);
  if (/^bytes[0-9]*$/.test(type)) return hexlify(value as BytesLike).toLowerCase();
  throw new TypeError(`ABI type ${type} is not supported`);
}

/** Several values: an object keyed by their names when every name is present and distinct, else a positional array. */
function composite(params: readonly ParamType[], valueAt: (index: number) => unknown): unknown {
  return keyedByName(
    params,
    params.map((p, i) => toJsonValue(p, valueAt(i))),
  );
}

/** JSON values of `params`, in order → an object keyed by their names when every name is present and distinct, else the array. */
function keyedByName(params: readonly ParamType[], values: unknown[]): unknown {
  const names = params.map((p) => p.name);
  if (names.some((n) => !n) || new Set(names).size !== names.length) return values;
  return Object.fromEntries(names.map((n, i) => [n, values[i]]));
}
