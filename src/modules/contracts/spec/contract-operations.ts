import type { Network } from '../../../kernel/network';
import { listMethods, methodKey, type AbiMethod } from '../../../chain/abi';

/** What the per-contract API documents are built from. */
export interface ContractSpecInput {
  id: string;
  name: string;
  network: Network;
  /** Null while the contract is not deployed. */
  address: string | null;
  abi: unknown[];
  /** Base URLs the paths are appended to, e.g. `https://api.example.org`. */
  servers: string[];
}

/** One gateway operation of the contract: exactly one per ABI function. */
export interface ContractOperation {
  kind: 'query' | 'invoke';
  method: AbiMethod;
  /** The `{method}` path value before URL encoding: the name, or the signature for overloads. */
  methodKey: string;
  /** Concrete path from the base URL, no parameters left: `/api/devportal/contracts/<id>/query/balanceOf`. */
  path: string;
  /** `query_<name>` / `invoke_<name>`, plus the parameter types for overloads (see operationIdOf). */
  operationId: string;
}

/** The operations of a contract in ABI order: view/pure functions under /query, the others under /invoke. */
export function contractOperations(c: ContractSpecInput): ContractOperation[] {
  const methods = listMethods(c.abi);
  const taken = new Set<string>();
  return methods.map((method) => {
    const kind = method.readOnly ? 'query' : 'invoke';
    const key = methodKey(methods, method);
    const base = operationIdOf(kind, method, key !== method.name);
    // A name like `transfer_address_uint256` next to an overloaded `transfer(address,uint256)` maps to the same id.
    let operationId = base;
    for (let n = 2; taken.has(operationId); n++) operationId = `${base}_${n}`;
    taken.add(operationId);
    return {
      kind,
      method,
      methodKey: key,
      path: `/api/devportal/contracts/${encodeSegment(c.id)}/${kind}/${encodeSegment(key)}`,
      operationId,
    };
  });
}

/**
 * A path segment with every character outside `[A-Za-z0-9_.~-]` percent-encoded: `transfer%28address%2Cuint256%29`
 * (docs/api.md, "Contracts"). encodeURIComponent alone leaves `(` and `)` as they are; clients send path keys as written, and
 * the server decodes them back to the signature.
 */
function encodeSegment(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * `query_balanceOf`, or for an overload `invoke_transfer_address_uint256`: the kind prefix keeps ids clear of
 * reserved words (`delete`, `import`, `new`) in generated clients and says which endpoint is hit; tuples are spelt
 * `tuple_..._end` and arrays `_arr`/`_arrN` so that `f(uint256[])`, `f(uint256)` and `f((uint256))` stay distinct.
 */
function operationIdOf(kind: string, method: AbiMethod, overloaded: boolean): string {
  const parts = [kind, method.name];
  if (overloaded) {
    const params = method.signature.slice(method.name.length + 1, -1);
    parts.push(
      params
        .replace(/\(/g, '_tuple_')
        .replace(/\)/g, '_end_')
        .replace(/\[\]/g, '_arr_')
        .replace(/\[([0-9]+)\]/g, '_arr$1_')
        .replace(/,/g, '_') || 'noargs',
    );
  }
  // Solidity allows `$` in names; most generator targets do not.
  return parts
    .join('_')
    .replace(/[^A-Za-z0-9_]/g, '_')
    .replace(/_+/g, '_')
    .replace(/_$/, '');
}
