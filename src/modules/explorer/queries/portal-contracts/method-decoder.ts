import { Interface, type FunctionFragment, type InterfaceAbi } from 'ethers';
import { decodeParams } from '../../../../chain/abi';

/** A decoded call: the function and its arguments as JSON-safe values. */
export interface DecodedCall {
  name: string;
  signature: string;
  args: Array<{ name: string; type: string; value: unknown }>;
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

/**
 * Decodes transaction input against an ABI with the bounded decoder; null when no function of the
 * ABI matches, the input does not decode, or it is over the decoder's bounds (docs/api.md "Hostile
 * chain data"): the transaction is then shown with its raw input only.
 */
export function decodeCall(abi: unknown, input: string): DecodedCall | null {
  const iface = interfaceOf(abi);
  if (!iface || input.length < 10) return null;
  try {
    const fragment: FunctionFragment | null = iface.getFunction(input.slice(0, 10).toLowerCase());
    if (!fragment) return null;
    const values = decodeParams(fragment.inputs, `0x${input.slice(10)}`);
    return {
      name: fragment.name,
      signature: fragment.format('sighash'),
      args: fragment.inputs.map((param, i) => ({ name: param.name, type: param.format('sighash'), value: values[i] })),
    };
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
