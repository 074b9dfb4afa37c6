import { ParamType, type FunctionFragment } from 'ethers';
import { AppError } from '../../kernel/errors/app-error';
import { addressDigits, boolJson, bytesJson, checksummed, intJson, keyedByName } from './abi-json';

/** Return, revert, call or log data longer than this is not decoded (docs/api.md "Hostile chain data"). */
export const MAX_DECODED_BYTES = 256 * 1024;
/** Elements one decoded value may hold in all, shared offsets counted each time they are followed. */
export const MAX_DECODED_ELEMENTS = 100_000;
/** Revert reasons and node messages quoted in errors are cut to this many UTF-8 bytes. */
export const MAX_QUOTED_BYTES = 4 * 1024;

const HEX = /^0x(?:[0-9a-fA-F]{2})*$/;
const WORD = 32;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** 422 RESULT_TOO_LARGE: `bytes` of data, over the size limit or holding more than the element budget. */
export function tooLarge(bytes: number, elements?: number): AppError {
  if (elements === undefined) {
    return new AppError(
      'RESULT_TOO_LARGE',
      `The data to decode holds ${bytes} bytes, more than the ${MAX_DECODED_BYTES} decoded`,
      { bytes, limit: MAX_DECODED_BYTES },
    );
  }
  return new AppError(
    'RESULT_TOO_LARGE',
    `The decoded value would hold more than ${MAX_DECODED_ELEMENTS} elements (nested offsets counted each time followed)`,
    { bytes, limit: MAX_DECODED_BYTES, elements, elementLimit: MAX_DECODED_ELEMENTS },
  );
}

/** True for the 422 of a decoding refused for its size or element count. */
export function isTooLarge(e: unknown): e is AppError {
  return e instanceof AppError && e.code === 'RESULT_TOO_LARGE';
}

/** Data that does not decode with the types given (ethers refuses it too: out of bounds, bad address, bad UTF-8). */
export class AbiDataError extends Error {}

/** Bytes held by 0x hex `data` (odd or non-hex text counts as its character length, refused later). */
export function dataBytes(data: string): number {
  return Math.max(0, Math.floor((data.length - 2) / 2));
}

/** Refuses (422 RESULT_TOO_LARGE) data over MAX_DECODED_BYTES: a length check, nothing read. */
export function checkDataSize(data: string): void {
  if (data.length > 2 + 2 * MAX_DECODED_BYTES) throw tooLarge(dataBytes(data));
}

/** `text` cut to MAX_QUOTED_BYTES of UTF-8 (an ellipsis marks the cut), for revert reasons and node messages. */
export function quoted(text: string): string {
  // A UTF-16 unit is at most 3 UTF-8 bytes: shorter text cannot be over.
  if (text.length * 3 <= MAX_QUOTED_BYTES || Buffer.byteLength(text) <= MAX_QUOTED_BYTES) return text;
  let end = MAX_QUOTED_BYTES - 3;
  let cut = text.slice(0, end);
  while (Buffer.byteLength(cut) > MAX_QUOTED_BYTES - 3) {
    end -= 1;
    cut = text.slice(0, end);
  }
  // Never half a surrogate pair.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/** An address whose EIP-55 spelling is computed after the walk, between turns of the event loop. */
class AddressSlot {
  value = '';
  constructor(readonly lower: string) {}
}

/** Checksums computed in one turn of the event loop: about 5 µs each, so a few ms per turn. */
const CHECKSUMS_PER_TURN = 500;

/** `values` with every AddressSlot replaced by its address, in place; each shared array or object visited once. */
function fillSlots(values: unknown[]): void {
  const seen = new Set<object>();
  const stack: object[] = [values];
  while (stack.length > 0) {
    const node = stack.pop()! as Record<string, unknown>;
    for (const key of Object.keys(node)) {
      const v = node[key];
      if (v instanceof AddressSlot) node[key] = v.value;
      else if (v !== null && typeof v === 'object' && !seen.has(v)) {
        seen.add(v);
        stack.push(v);
      }
    }
  }
}

/** How one ABI type is read: ethers v6's coders (abi/coders/*.ts), compiled once per ParamType. */
type Plan =
  | { kind: 'int'; id: number; dynamic: false; size: number; bits: number; signed: boolean }
  | { kind: 'address' | 'bool'; id: number; dynamic: false; size: number }
  | { kind: 'fixed'; id: number; dynamic: false; size: number; bytes: number }
  | { kind: 'bytes' | 'string'; id: number; dynamic: true; size: number }
  | { kind: 'array'; id: number; dynamic: boolean; size: number; child: Plan; length: number }
  | { kind: 'tuple'; id: number; dynamic: boolean; size: number; components: Plan[]; params: readonly ParamType[] };

let nextPlanId = 1;
const plans = new WeakMap<ParamType, Plan>();

function planOf(param: ParamType): Plan {
  let plan = plans.get(param);
  if (plan) return plan;
  const id = nextPlanId++;
  if (param.isArray()) {
    const child = planOf(param.arrayChildren);
    const length = param.arrayLength;
    const dynamic = length === -1 || child.dynamic;
    plan = { kind: 'array', id, dynamic, size: dynamic ? WORD : child.size * length, child, length };
  } else if (param.isTuple()) {
    const components = param.components.map(planOf);
    const dynamic = components.some((c) => c.dynamic);
    const size = dynamic ? WORD : components.reduce((n, c) => n + c.size, 0);
    plan = { kind: 'tuple', id, dynamic, size, components, params: param.components };
  } else {
    const type = param.baseType;
    const int = /^(u?)int([0-9]+)$/.exec(type);
    const fixed = /^bytes([0-9]+)$/.exec(type);
    if (int) plan = { kind: 'int', id, dynamic: false, size: WORD, bits: Number(int[2]), signed: int[1] === '' };
    else if (fixed) plan = { kind: 'fixed', id, dynamic: false, size: WORD, bytes: Number(fixed[1]) };
    else if (type === 'address' || type === 'bool') plan = { kind: type, id, dynamic: false, size: WORD };
    else if (type === 'bytes' || type === 'string') plan = { kind: type, id, dynamic: true, size: WORD };
    else throw new AbiDataError(`ABI type ${type} is not supported`);
  }
  plans.set(param, plan);
  return plan;
}

/** A value decoded at one place for one type, and the elements it holds (counted again each time it is reused). */
interface Decoded {
  value: unknown;
  count: number;
}

/**
 * One decoding of `hex` (no 0x). Reads words in place, never copying the data (ethers' Reader copies
 * the rest of the data for every dynamic value: quadratic on hostile data). Every value costs one
 * element, bytes and strings one more per word; a dynamic value is decoded once per place and type
 * and its count added again each time an offset leads to it, so work stays within the budget
 * whatever the offsets share.
 */
class Walk {
  elements = 0;
  /** Addresses left to checksum (deferred mode), one per distinct address. */
  readonly slots: AddressSlot[] = [];
  private readonly size: number;
  private readonly dynamicValues = new Map<number, Decoded>();
  private readonly words = new Map<string, unknown>();

  constructor(
    private readonly hex: string,
    private readonly loose: boolean,
    private readonly deferChecksums = false,
  ) {
    this.size = hex.length / 2;
  }

  private count(n: number): void {
    this.elements += n;
    if (this.elements > MAX_DECODED_ELEMENTS) throw tooLarge(this.size, this.elements);
  }

  private word(pos: number): string {
    if (pos + WORD > this.size) throw new AbiDataError('data out-of-bounds');
    return this.hex.slice(2 * pos, 2 * pos + 64);
  }

  /** A length or offset: anything past the data is out of bounds. */
  private index(pos: number): number {
    const word = this.word(pos);
    const high = word.slice(0, 56);
    const n = parseInt(word.slice(56), 16);
    if (high !== '00000000000000000000000000000000000000000000000000000000' || n > this.size) {
      throw new AbiDataError('offset or length out of bounds');
    }
    return n;
  }

  /** Values of `plans` laid out as a tuple whose heads start at `base` (ethers' unpack). */
  tuple(plans: readonly Plan[], base: number): unknown[] {
    const values: unknown[] = [];
    let head = base;
    for (const plan of plans) {
      if (plan.dynamic) {
        values.push(this.followed(plan, base + this.index(head)));
        head += WORD;
      } else {
        values.push(this.value(plan, head));
        head += plan.size;
      }
    }
    return values;
  }

  /** A dynamic value an offset leads to: decoded once per place, counted every time. */
  private followed(plan: Plan, pos: number): unknown {
    const key = plan.id * 0x100000 + pos;
    const seen = this.dynamicValues.get(key);
    if (seen) {
      this.count(seen.count);
      return seen.value;
    }
    const before = this.elements;
    const value = this.value(plan, pos);
    this.dynamicValues.set(key, { value, count: this.elements - before });
    return value;
  }

  private value(plan: Plan, pos: number): unknown {
    switch (plan.kind) {
      case 'int':
      case 'address':
      case 'bool':
      case 'fixed':
        this.count(1);
        return this.leaf(plan, this.word(pos));
      case 'bytes':
      case 'string': {
        const length = this.index(pos);
        const start = pos + WORD;
        const padded = Math.ceil(length / WORD) * WORD;
        if (start + padded > this.size && !(this.loose && start + length <= this.size)) {
          throw new AbiDataError('data out-of-bounds');
        }
        this.count(1 + padded / WORD);
        const hex = this.hex.slice(2 * start, 2 * (start + length));
        if (plan.kind === 'bytes') return bytesJson(hex);
        try {
          return utf8.decode(Buffer.from(hex, 'hex'));
        } catch {
          throw new AbiDataError('invalid UTF-8 string');
        }
      }
      case 'array': {
        let length = plan.length;
        let base = pos;
        if (length === -1) {
          length = this.index(pos);
          // ethers' check: each element takes at least a word after the length.
          if (length * WORD > this.size - pos) throw new AbiDataError('insufficient data length');
          base = pos + WORD;
        }
        this.count(1);
        const child = plan.child;
        const values: unknown[] = [];
        let head = base;
        for (let i = 0; i < length; i++) {
          if (child.dynamic) {
            values.push(this.followed(child, base + this.index(head)));
            head += WORD;
          } else {
            values.push(this.value(child, head));
            head += child.size;
          }
        }
        return values;
      }
      case 'tuple':
        this.count(1);
        return keyedByName(plan.params, this.tuple(plan.components, pos));
    }
  }

  /** One static word as ethers reads it (abi-json.ts); values remembered per word, so repeated words cost a lookup. */
  private leaf(plan: Plan & { kind: 'int' | 'address' | 'bool' | 'fixed' }, word: string): unknown {
    if (plan.kind === 'bool') return boolJson(word);
    if (plan.kind === 'fixed') return bytesJson(word, plan.bytes);
    const key = `${plan.id}:${word}`;
    const known = this.words.get(key);
    if (known !== undefined) return known;
    let value: unknown;
    if (plan.kind === 'address') {
      const lower = addressDigits(word);
      if (lower === null) throw new AbiDataError('address with high bytes set');
      if (this.deferChecksums) {
        const slot = new AddressSlot(lower);
        this.slots.push(slot);
        value = slot;
      } else {
        value = checksummed(lower);
      }
    } else if (plan.kind === 'int') {
      value = intJson(word, plan.bits, plan.signed);
    }
    this.words.set(key, value);
    return value;
  }
}

export interface DecodeOptions {
  /** Events: bytes and strings may end unpadded (ethers' loose reading of log data). */
  loose?: boolean;
}

/**
 * Chain data (0x hex) decoded as `params`, each value in the one JSON form of abi-json.ts
 * (docs/api.md, "Gateway": integers as decimal strings, addresses EIP-55, bytes lowercase hex, tuples keyed by names).
 * Bounded before it starts: over MAX_DECODED_BYTES or MAX_DECODED_ELEMENTS → 422
 * RESULT_TOO_LARGE; data the types do not fit → AbiDataError.
 */
export function decodeParams(params: readonly ParamType[], data: string, options: DecodeOptions = {}): unknown[] {
  checkDataSize(data);
  if (!HEX.test(data)) throw new AbiDataError('data is not 0x hex');
  const walk = new Walk(data.slice(2), options.loose ?? false);
  return walk.tuple(params.map(planOf), 0);
}

/**
 * As decodeParams, for callers that can wait: the decoding itself is bounded by the element budget,
 * but EIP-55 checksums cost about 5 µs each and 256 KiB holds 8,192 distinct addresses, so they are
 * computed CHECKSUMS_PER_TURN at a time between turns of the event loop (docs/api.md "Hostile chain
 * data": no decoding holds it more than 100 ms).
 */
export async function decodeParamsAsync(
  params: readonly ParamType[],
  data: string,
  options: DecodeOptions = {},
): Promise<unknown[]> {
  checkDataSize(data);
  if (!HEX.test(data)) throw new AbiDataError('data is not 0x hex');
  const walk = new Walk(data.slice(2), options.loose ?? false, true);
  const values = walk.tuple(params.map(planOf), 0);
  if (walk.slots.length === 0) return values;
  for (let i = 0; i < walk.slots.length; i++) {
    if (i > 0 && i % CHECKSUMS_PER_TURN === 0) await new Promise((r) => setImmediate(r));
    const slot = walk.slots[i]!;
    slot.value = checksummed(slot.lower);
  }
  fillSlots(values);
  return values;
}

/**
 * Elements a decoded JSON value holds, counted as the decoder counts them (a shared part each time
 * it appears; a string longer than a word one more per 64 characters), stopping once over `limit`. For budgets over
 * several values: one request, one page (docs/api.md "Hostile chain data").
 */
export function elementsOf(value: unknown, limit = MAX_DECODED_ELEMENTS): number {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && count <= limit) {
    const v = stack.pop();
    count += 1;
    // Integers (78 digits at most), addresses and bytes32 are one element; longer text one per word.
    if (typeof v === 'string') count += v.length > 80 ? Math.ceil(v.length / 64) : 0;
    else if (Array.isArray(v)) for (const item of v as unknown[]) stack.push(item);
    else if (v !== null && typeof v === 'object') for (const item of Object.values(v)) stack.push(item);
  }
  return count;
}

/** What several decoded values of one request or page may hold in all: MAX_DECODED_ELEMENTS. */
export class DecodeBudget {
  private used = 0;

  /** Takes `value`'s elements from the budget; false (nothing taken) when they do not fit. */
  take(value: unknown): boolean {
    const left = MAX_DECODED_ELEMENTS - this.used;
    const n = elementsOf(value, left);
    if (n > left) return false;
    this.used += n;
    return true;
  }

  /** Elements taken so far. */
  get taken(): number {
    return this.used;
  }
}

/** Types given as ABI type strings (`string`, `uint256[]`), parsed once. */
const parsedTypes = new Map<string, ParamType>();
export function paramTypes(...types: string[]): ParamType[] {
  return types.map((t) => {
    let p = parsedTypes.get(t);
    if (!p) {
      p = ParamType.from(t);
      parsedTypes.set(t, p);
    }
    return p;
  });
}

/**
 * A function's return data → the `result` of a query (docs/api.md §7): no output → null, one →
 * that value, several → keyed by output names. Data that is not whole words or does not fit the
 * outputs is an AbiDataError, as ethers' decodeFunctionResult refuses it.
 */
export async function decodeFunctionOutput(fragment: FunctionFragment, raw: string): Promise<unknown> {
  checkDataSize(raw);
  if ((raw.length - 2) % 64 !== 0) throw new AbiDataError('invalid length for result data');
  const values = await decodeParamsAsync(fragment.outputs, raw);
  if (values.length === 0) return null;
  if (values.length === 1) return values[0];
  return keyedByName(fragment.outputs, values);
}
