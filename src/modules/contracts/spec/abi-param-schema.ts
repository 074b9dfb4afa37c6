import type { ParamType } from 'ethers';
import { elementaryTypeNamed } from '../../../chain/abi';

/** A JSON Schema object as written into the documents. */
export type Schema = Record<string, unknown>;

/** OpenAPI 3.0 has `nullable` and `anyOf`; Swagger 2.0 has neither (it gets `x-nullable` and a looser union). */
export type SpecDialect = 'openapi3' | 'swagger2';

/** Inputs follow the gateway's coercion rules (docs/api.md, "Gateway"); outputs are what the gateway answers. */
export type Direction = 'input' | 'output';

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** The schema of one ABI value in a request (`input`) or a response (`output`). */
export function paramSchema(param: ParamType, dialect: SpecDialect, direction: Direction): Schema {
  if (param.isArray()) {
    const items = paramSchema(param.arrayChildren, dialect, direction);
    const fixed = param.arrayLength >= 0 ? { minItems: param.arrayLength, maxItems: param.arrayLength } : {};
    return { type: 'array', description: param.format('sighash'), items, ...fixed };
  }
  if (param.isTuple()) {
    const components = param.components;
    const names = components.map((c) => c.name);
    if (names.some((n) => !n) || new Set(names).size !== names.length) {
      return positionalSchema(components, dialect, direction, `tuple ${param.format('sighash')} by position`);
    }
    return {
      type: 'object',
      description: `tuple ${param.format('sighash')}`,
      properties: Object.fromEntries(components.map((c) => [c.name, paramSchema(c, dialect, direction)])),
      required: names,
      // The gateway refuses unknown fields in tuples; saying so lets generated clients catch typos.
      additionalProperties: false,
    };
  }
  return scalarSchema(param.baseType, direction);
}

/**
 * A fixed-length list of differently typed values (function arguments, unnamed outputs or tuple components).
 * OpenAPI 3.0 has no `prefixItems`, so: `minItems = maxItems = n`, `items` = the distinct position schemas under
 * `anyOf` (a single schema when they agree), and the per-position names and types in `description`.
 * Swagger 2.0 has no `anyOf`: positions that disagree share the common JSON type, or are left untyped.
 */
export function positionalSchema(
  params: readonly ParamType[],
  dialect: SpecDialect,
  direction: Direction,
  what: string,
): Schema {
  const schemas = params.map((p) => paramSchema(p, dialect, direction));
  const positions = params.map((p, i) => `[${i}] ${p.name ? `${p.name}: ` : ''}${p.format('sighash')}`).join('; ');
  return {
    type: 'array',
    description: params.length === 0 ? `${what}: none` : `${what}: ${positions}`,
    items: unionSchema(schemas, dialect),
    minItems: params.length,
    maxItems: params.length,
  };
}

/** One schema admitting each of `schemas`. */
function unionSchema(schemas: Schema[], dialect: SpecDialect): Schema {
  const distinct = new Map<string, Schema>();
  for (const s of schemas) {
    // Descriptions and examples differ between e.g. uint8 and uint256; the shape is what the union needs.
    const { description: _d, example: _e, ...shape } = s;
    const key = JSON.stringify(shape);
    if (!distinct.has(key)) distinct.set(key, s);
  }
  const list = [...distinct.values()];
  if (list.length === 0) return {};
  if (list.length === 1) return list[0];
  if (dialect === 'openapi3') return { anyOf: list };
  const types = new Set(list.map((s) => s.type));
  const [only] = types;
  return types.size === 1 && (only === 'string' || only === 'boolean')
    ? { type: only, description: 'see the positions in the array description' }
    : { description: 'any of the types listed in the array description' };
}

/** Elementary ABI types: integers and bytes as strings with patterns, bool as boolean, string as string. */
function scalarSchema(type: string, direction: Direction): Schema {
  const elementary = elementaryTypeNamed(type);
  if (elementary?.kind === 'int') {
    const unsigned = !elementary.signed;
    if (direction === 'output') {
      return {
        type: 'string',
        pattern: unsigned ? '^[0-9]+$' : '^-?[0-9]+$',
        description: `${type}, decimal`,
        example: '0',
      };
    }
    return {
      type: 'string',
      pattern: unsigned ? '^[0-9]+$|^0x[0-9a-fA-F]+$' : '^-?[0-9]+$|^0x[0-9a-fA-F]+$',
      description: `${type} as a decimal or 0x hex string (a JSON number is accepted when it is a safe integer)`,
      example: '0',
    };
  }
  if (type === 'address') {
    return {
      type: 'string',
      pattern: '^0x[0-9a-fA-F]{40}$',
      description:
        direction === 'input'
          ? 'address, any case (mixed case must be a valid EIP-55 checksum)'
          : 'address, EIP-55 checksummed',
      example: ZERO_ADDRESS,
    };
  }
  if (type === 'bool') return { type: 'boolean', description: 'bool' };
  if (type === 'string') return { type: 'string', description: 'string' };
  const hex = direction === 'input' ? '[0-9a-fA-F]' : '[0-9a-f]';
  if (type === 'bytes') {
    return { type: 'string', pattern: `^0x(${hex}{2})*$`, description: 'bytes as 0x hex', example: '0x' };
  }
  if (elementary?.kind === 'bytes') {
    const digits = elementary.size * 2;
    return {
      type: 'string',
      pattern: `^0x${hex}{${digits}}$`,
      description: `${type} as 0x hex (${digits} digits)`,
      example: `0x${'0'.repeat(digits)}`,
    };
  }
  return { description: type };
}
