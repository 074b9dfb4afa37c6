import { Interface, Result, type InterfaceAbi, type ParamType } from 'ethers';

/** A decoded call: the function and its arguments as JSON-safe values. */
export interface DecodedCall {
  name: string;
  signature: string;
  args: Array<{ name: string; type: string; value: unknown }>;
}

/**
 * Turns an ABI value into JSON the way the gateway returns results (API.md §7): integers as
 * decimal strings, addresses checksummed, bytes as hex, tuples as objects keyed by component
 * names (arrays when unnamed), arrays as arrays.
 */
export function toJsonValue(value: unknown, type: ParamType): unknown {
  if (type.isArray()) {
    return Array.from(value as ArrayLike<unknown>, (v) => toJsonValue(v, type.arrayChildren));
  }
  if (type.isTuple()) {
    const items = Array.from(value as ArrayLike<unknown>);
    const named = type.components.every((c) => c.name !== '');
    if (!named) return items.map((v, i) => toJsonValue(v, type.components[i]!));
    return Object.fromEntries(type.components.map((c, i) => [c.name, toJsonValue(items[i], c)]));
  }
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Result) return Array.from(value);
  return value;
}

/** Interfaces by ABI text, so that each portal contract's ABI is parsed once. */
const interfaces = new Map<string, Interface | null>();
const MAX_CACHED_INTERFACES = 500;

function interfaceOf(abi: unknown): Interface | null {
  const key = JSON.stringify(abi);
  let iface = interfaces.get(key);
  if (iface === undefined) {
    try {
      iface = new Interface(abi as InterfaceAbi);
    } catch {
      iface = null;
    }
    if (interfaces.size >= MAX_CACHED_INTERFACES) interfaces.delete(interfaces.keys().next().value!);
    interfaces.set(key, iface);
  }
  return iface;
}

/** Decodes transaction input against an ABI; null when no function of the ABI matches. */
export function decodeCall(abi: unknown, input: string): DecodedCall | null {
  const iface = interfaceOf(abi);
  if (!iface || input.length < 10) return null;
  try {
    const parsed = iface.parseTransaction({ data: input });
    if (!parsed) return null;
    return {
      name: parsed.name,
      signature: parsed.signature,
      args: parsed.fragment.inputs.map((param, i) => ({
        name: param.name,
        type: param.format('sighash'),
        value: toJsonValue(parsed.args[i], param),
      })),
    };
  } catch {
    // Input that does not decode with the function's types: shown undecoded.
    return null;
  }
}

/** The name of the function a 4-byte selector calls, when the ABI has it. */
export function functionName(abi: unknown, selector: string): string | null {
  const iface = interfaceOf(abi);
  if (!iface) return null;
  try {
    return iface.getFunction(selector)?.name ?? null;
  } catch {
    return null;
  }
}
