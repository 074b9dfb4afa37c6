import { FunctionFragment } from 'ethers';
import { AppError } from '../../kernel/errors/app-error';

/** One callable function of a contract ABI, as the gateway and the contract specification see it. */
export interface AbiMethod {
  name: string;
  /** Canonical signature, e.g. `transfer(address,uint256)`; tuples are written `(address,uint256)`. */
  signature: string;
  fragment: FunctionFragment;
  /** `view` or `pure`: served by `query` (eth_call). */
  readOnly: boolean;
  payable: boolean;
}

/** The ABI entries that are functions (events, errors, constructor, fallback, receive are skipped), in ABI order. */
export function listMethods(abi: unknown[]): AbiMethod[] {
  const methods: AbiMethod[] = [];
  const seen = new Set<string>();
  for (const entry of abi) {
    if (!isFunctionEntry(entry)) continue;
    const fragment = FunctionFragment.from(entry);
    const signature = fragment.format('sighash');
    // Repeated identical entries (merged ABIs) would otherwise look like overloads of one another.
    if (seen.has(signature)) continue;
    seen.add(signature);
    methods.push({
      name: fragment.name,
      signature,
      fragment,
      readOnly: fragment.constant,
      payable: fragment.payable,
    });
  }
  return methods;
}

/** The `{method}` path value of a method: its name when no other function shares it, else its full signature. */
export function methodKey(methods: readonly AbiMethod[], method: AbiMethod): string {
  return methods.some((m) => m.name === method.name && m.signature !== method.signature)
    ? method.signature
    : method.name;
}

/** Looks a `{method}` path value (already URL-decoded) up: a name when unambiguous, else the full signature. */
export function findMethod(abi: unknown[], method: string): AbiMethod {
  const methods = listMethods(abi);
  if (method.includes('(')) {
    const wanted = canonicalSignature(method);
    const found = methods.find((m) => m.signature === wanted);
    if (found) return found;
    throw new AppError('METHOD_NOT_FOUND', `The contract has no function ${wanted}`, { method });
  }
  const named = methods.filter((m) => m.name === method);
  if (named.length === 1) return named[0];
  if (named.length > 1) {
    const signatures = named.map((m) => m.signature);
    throw new AppError(
      'AMBIGUOUS_METHOD',
      `The contract has several functions named ${method}; call one by its full signature (${signatures.join(', ')})`,
      { method, signatures },
    );
  }
  throw new AppError('METHOD_NOT_FOUND', `The contract has no function named ${method}`, { method });
}

/**
 * A signature as ethers writes it, so that `transfer(address, uint)` or one with parameter names still finds
 * `transfer(address,uint256)`; left as sent (minus spaces) when it does not parse.
 */
function canonicalSignature(signature: string): string {
  try {
    return FunctionFragment.from(`function ${signature}`).format('sighash');
  } catch {
    return signature.replace(/\s+/g, '');
  }
}

/** True for a JSON ABI entry describing a function (`type` defaults to function in old ABIs). */
function isFunctionEntry(entry: unknown): entry is Record<string, unknown> {
  if (entry === null || typeof entry !== 'object') return false;
  const type = (entry as { type?: unknown }).type;
  return type === 'function' || (type === undefined && typeof (entry as { name?: unknown }).name === 'string');
}
