import { getAddress, type ConstructorFragment, type FunctionFragment, type ParamType } from 'ethers';
import { elementaryTypeNamed } from './elementary-type';
import { AppError } from '../../kernel/errors/app-error';

/** A value that does not fit its ABI type; `path` locates it inside the argument (`args[1].to[2]`). */
class ArgumentMismatch extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path}: ${problem}`);
  }
}

const DECIMAL = /^-?[0-9]+$/;
const HEX_NUMBER = /^0x[0-9a-fA-F]+$/;
const HEX_BYTES = /^0x(?:[0-9a-fA-F]{2})*$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/** Longest integer string accepted; bounds the BigInt parse of a hostile 1 MiB digit string (2^256 has 78 digits). */
const MAX_INTEGER_CHARS = 100;

/**
 * Checks JSON `args` against the inputs of a function or constructor (docs/api.md, "Gateway") and turns them into the values
 * ethers' `Interface.encodeFunctionData` / `encodeDeploy` expect: bigints for integers, checksummed addresses,
 * lowercase hex for bytes, positional arrays for tuples. Absent or null `args` means no arguments.
 */
export function encodeArgs(fragment: FunctionFragment | ConstructorFragment, args: unknown): unknown[] {
  const list = args === undefined || args === null ? [] : args;
  if (!Array.isArray(list)) {
    throw new AppError('VALIDATION_FAILED', '`args` must be a JSON array of positional arguments', {
      field: 'args',
      reason: `expected an array, got ${describe(list)}`,
    });
  }
  const inputs = fragment.inputs;
  if (list.length < inputs.length) {
    const index = list.length;
    const param = inputs[index];
    throw argumentError(index, param, `missing argument: expected ${inputs.length} argument(s), got ${list.length}`);
  }
  if (list.length > inputs.length) {
    const index = inputs.length;
    throw new AppError('INVALID_ARGUMENT', `Argument ${index}: unexpected; the function takes ${inputs.length}`, {
      index,
      name: null,
      type: null,
      reason: `unexpected extra argument: expected ${inputs.length} argument(s), got ${list.length}`,
    });
  }
  return inputs.map((param, index) => {
    try {
      return coerce(param, list[index], `args[${index}]`);
    } catch (e) {
      if (e instanceof ArgumentMismatch) throw argumentError(index, param, e.message);
      throw e;
    }
  });
}

/** The 400 INVALID_ARGUMENT for top-level argument `index`. */
function argumentError(index: number, param: ParamType, reason: string): AppError {
  const type = param.format('sighash');
  const label = param.name ? `${param.name} (${type})` : type;
  return new AppError('INVALID_ARGUMENT', `Argument ${index}, ${label}: ${reason}`, {
    index,
    name: param.name || null,
    type,
    reason,
  });
}

/** One JSON value → the ethers value for `param`, recursively; throws ArgumentMismatch at the first misfit. */
function coerce(param: ParamType, value: unknown, path: string): unknown {
  if (param.isArray()) return coerceArray(param, value, path);
  if (param.isTuple()) return coerceTuple(param, value, path);
  const type = param.baseType;
  const elementary = elementaryTypeNamed(type);
  switch (elementary?.kind) {
    case 'int':
      return coerceInteger(!elementary.signed, elementary.bits, value, path);
    case 'address':
      return coerceAddress(value, path);
    case 'bool':
      // Strict on purpose: the published schema says boolean, and "false" being truthy is a classic client bug.
      if (typeof value !== 'boolean')
        throw new ArgumentMismatch(path, `expected a JSON boolean, got ${describe(value)}`);
      return value;
    case 'bytes':
      return coerceBytes(elementary.size, value, path);
  }
  if (type === 'string') {
    if (typeof value !== 'string') throw new ArgumentMismatch(path, `expected a JSON string, got ${describe(value)}`);
    return value;
  }
  if (type === 'bytes') return coerceBytes(null, value, path);
  // Only reachable with ABI types outside Solidity's (e.g. `function`), which ethers rejects anyway.
  throw new ArgumentMismatch(path, `ABI type ${type} is not supported by the gateway`);
}

/** uintN / intN from a decimal string, a 0x hex string (plain magnitude, not two's complement) or a safe JSON integer. */
function coerceInteger(unsigned: boolean, bits: number, value: unknown, path: string): bigint {
  const type = `${unsigned ? 'uint' : 'int'}${bits}`;
  let n: bigint;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) {
      throw new ArgumentMismatch(
        path,
        `the JSON number ${value} is not a safe integer (|n| <= 2^53-1) and would lose precision; send ${type} values as decimal strings`,
      );
    }
    n = BigInt(value);
  } else if (typeof value === 'bigint') {
    n = value;
  } else if (typeof value === 'string') {
    if (value.length > MAX_INTEGER_CHARS) throw new ArgumentMismatch(path, `integer string too long for ${type}`);
    if (DECIMAL.test(value) || HEX_NUMBER.test(value)) n = BigInt(value);
    else {
      throw new ArgumentMismatch(
        path,
        `expected ${type} as a decimal string (${unsigned ? '' : 'optional "-", '}digits) or 0x hex string, got ${JSON.stringify(value)}`,
      );
    }
  } else {
    throw new ArgumentMismatch(
      path,
      `expected ${type} as a decimal string, 0x hex string or safe JSON integer, got ${describe(value)}`,
    );
  }
  const min = unsigned ? 0n : -(1n << BigInt(bits - 1));
  const max = unsigned ? (1n << BigInt(bits)) - 1n : (1n << BigInt(bits - 1)) - 1n;
  if (n < min || n > max) throw new ArgumentMismatch(path, `${n} is out of range for ${type} (${min} to ${max})`);
  return n;
}

/**
 * An address in any case; mixed case must carry a valid EIP-55 checksum. Returned in lower case:
 * the ABI encodes the 20 bytes, and computing a checksum (a keccak-256) for an address sent in one
 * case would only be thrown away.
 */
function coerceAddress(value: unknown, path: string): string {
  if (typeof value !== 'string' || !ADDRESS.test(value)) {
    throw new ArgumentMismatch(path, `expected an address (0x followed by 40 hex digits), got ${describe(value)}`);
  }
  const lower = value.toLowerCase();
  if (value !== lower && value !== `0x${value.slice(2).toUpperCase()}`) {
    try {
      getAddress(value);
    } catch {
      throw new ArgumentMismatch(path, `bad EIP-55 checksum in ${value}; send it checksummed or all lower case`);
    }
  }
  return lower;
}

/** `bytes` (any even hex length) or `bytesN` (exactly N bytes) from a 0x hex string; returned lower case. */
function coerceBytes(size: number | null, value: unknown, path: string): string {
  const type = size === null ? 'bytes' : `bytes${size}`;
  if (typeof value !== 'string' || !HEX_BYTES.test(value)) {
    throw new ArgumentMismatch(
      path,
      `expected ${type} as a 0x hex string with an even number of digits, got ${describe(value)}`,
    );
  }
  const length = (value.length - 2) / 2;
  if (size !== null && length !== size) {
    throw new ArgumentMismatch(
      path,
      `expected exactly ${size} bytes (${size * 2} hex digits) for ${type}, got ${length}`,
    );
  }
  return value.toLowerCase();
}

/** `T[]` / `T[k]` from a JSON array. */
function coerceArray(
  param: ParamType & { arrayChildren: ParamType; arrayLength: number },
  value: unknown,
  path: string,
) {
  if (!Array.isArray(value)) {
    throw new ArgumentMismatch(path, `expected a JSON array for ${param.format('sighash')}, got ${describe(value)}`);
  }
  if (param.arrayLength >= 0 && value.length !== param.arrayLength) {
    throw new ArgumentMismatch(path, `expected exactly ${param.arrayLength} element(s), got ${value.length}`);
  }
  return value.map((item, i) => coerce(param.arrayChildren, item, `${path}[${i}]`));
}

/** A tuple from an object keyed by component names (all required, no others) or an array by position. */
function coerceTuple(param: ParamType & { components: ReadonlyArray<ParamType> }, value: unknown, path: string) {
  const components = param.components;
  if (Array.isArray(value)) {
    if (value.length !== components.length) {
      throw new ArgumentMismatch(
        path,
        `expected a tuple of ${components.length} value(s), got an array of ${value.length}`,
      );
    }
    return components.map((c, i) => coerce(c, value[i], memberPath(path, c, i)));
  }
  if (value === null || typeof value !== 'object') {
    throw new ArgumentMismatch(
      path,
      `expected an object (or array) for ${param.format('sighash')}, got ${describe(value)}`,
    );
  }
  if (!components.every((c) => c.name)) {
    throw new ArgumentMismatch(path, 'this tuple has unnamed components; send it as an array by position');
  }
  const record = value as Record<string, unknown>;
  const names = new Set(components.map((c) => c.name));
  const unknown = Object.keys(record).filter((k) => !names.has(k));
  if (unknown.length > 0) {
    throw new ArgumentMismatch(path, `unknown field(s) ${unknown.join(', ')}; expected ${[...names].join(', ')}`);
  }
  return components.map((c, i) => {
    if (!Object.hasOwn(record, c.name)) throw new ArgumentMismatch(memberPath(path, c, i), 'missing field');
    return coerce(c, record[c.name], memberPath(path, c, i));
  });
}

/** `path.name`, or `path[i]` for an unnamed component. */
function memberPath(path: string, component: ParamType, index: number): string {
  return component.name ? `${path}.${component.name}` : `${path}[${index}]`;
}

/** A short description of a JSON value for error messages (never echoes a large value in full). */
function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return value.length > 80 ? `a string of ${value.length} characters` : JSON.stringify(value);
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}
