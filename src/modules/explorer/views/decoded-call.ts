import { Interface, type FunctionFragment, type InterfaceAbi } from 'ethers';
import { decodeParams, decodeParamsAsync } from '../../../chain/abi';

/** A decoded call: the function and its arguments as JSON-safe values. */
export interface DecodedCall {
  name: string;
  signature: string;
  args: Array<{ name: string; type: string; value: unknown }>;
}

/** Interfaces by ABI text, so that each portal contract's ABI is parsed once. */
const interfaces = new Map<string, Interface | null>();
const MAX_CACHED_INTERFACES = 500;

/** By the ABI value itself: a page asks for the same contract's ABI once a row, its text is made once. */
const interfacesOfValue = new WeakMap<object, Interface | null>();

function interfaceOf(abi: unknown): Interface | null {
  const value = typeof abi === 'object' && abi !== null ? abi : null;
  const known = value ? interfacesOfValue.get(value) : undefined;
  if (known !== undefined) return known;
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
  if (value) interfacesOfValue.set(value, iface);
  return iface;
}

/** The function of the ABI a call's input selects, or null. */
function calledFunction(abi: unknown, input: string): FunctionFragment | null {
  const iface = interfaceOf(abi);
  if (!iface || input.length < 10) return null;
  try {
    return iface.getFunction(input.slice(0, 10).toLowerCase());
  } catch {
    return null;
  }
}

function decodedCall(fragment: FunctionFragment, values: unknown[]): DecodedCall {
  return {
    name: fragment.name,
    signature: fragment.format('sighash'),
    args: fragment.inputs.map((param, i) => ({ name: param.name, type: param.format('sighash'), value: values[i] })),
  };
}

/**
 * Decodes transaction input against an ABI with the bounded decoder; null when no function of the
 * ABI matches, the input does not decode, or it is over the decoder's bounds (docs/api.md "Hostile
 * chain data"): the transaction is then shown with its raw input only.
 */
export function decodeCall(abi: unknown, input: string): DecodedCall | null {
  const fragment = calledFunction(abi, input);
  if (!fragment) return null;
  try {
    return decodedCall(fragment, decodeParams(fragment.inputs, `0x${input.slice(10)}`));
  } catch {
    // Input that does not decode with the function's types, or too large to: shown undecoded.
    return null;
  }
}

/** As decodeCall, never holding the event loop long (the bounded decoder's checksums between turns). */
export async function decodeCallAsync(abi: unknown, input: string): Promise<DecodedCall | null> {
  const fragment = calledFunction(abi, input);
  if (!fragment) return null;
  try {
    return decodedCall(fragment, await decodeParamsAsync(fragment.inputs, `0x${input.slice(10)}`));
  } catch {
    // Input that does not decode with the function's types, or too large to: shown undecoded.
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
