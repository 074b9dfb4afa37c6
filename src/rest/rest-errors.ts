import type http from 'node:http';
import {
  getNullableType,
  isInputObjectType,
  isListType,
  typeFromAST,
  type ExecutionArgs,
  type GraphQLInputType,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
} from 'graphql';
import { AppError } from '../kernel/errors/app-error';
import { errorBody, type PublicError } from '../kernel/errors/error-map';

/**
 * REST clients send JSON bodies, path and query parameters, not GraphQL variables: their errors
 * name the body field or parameter (`name is required`, details.field "name"), never `$input` or
 * a GraphQL type, and their JSON types are taken as sent (no list coercion of a single value).
 */

/** What a value of a GraphQL scalar must be, in JSON terms. */
const KIND: Record<string, string> = {
  Int: 'an integer',
  SafeInt: 'an integer',
  Float: 'a number',
  String: 'a string',
  ID: 'a string',
  Boolean: 'true or false',
};

/** `Variable "$input" got invalid value {} at "input.scopes[0]"; <reason>` (graphql-js 16). */
const INVALID_VALUE = /^Variable "\$(\w+)" got invalid value [\s\S]*?(?: at "([^"]+)")?; ([\s\S]*)$/;
const NOT_PROVIDED = /^Variable "\$(\w+)" of required type "[^"]+" was not provided\.?$/;
const NULL_GIVEN = /^Variable "\$(\w+)" of non-null type "[^"]+" must not be null\.?$/;

/** The REST name of a variable path: the body's own fields stand for `input`. */
function restField(variable: string, path: string | undefined): string {
  const full = path ?? variable;
  if (variable !== 'input') return full;
  return full === 'input' ? 'body' : full.replace(/^input\.?/, '');
}

const join = (parent: string, name: string) => (parent === '' || parent === 'body' ? name : `${parent}.${name}`);

/** The REST wording of a GraphQL variable coercion error; undefined for any other message. */
export function restValidationMessage(message: string): { message: string; field: string } | undefined {
  const missing = NOT_PROVIDED.exec(message) ?? NULL_GIVEN.exec(message);
  if (missing) {
    const field = restField(missing[1]!, undefined);
    return { field, message: `${field} is required` };
  }
  const invalid = INVALID_VALUE.exec(message);
  if (!invalid) return undefined;
  const field = restField(invalid[1]!, invalid[2]);
  const reason = invalid[3]!;
  const required = /^Field "(\w+)" of required type "[^"]+" was not provided/.exec(reason);
  if (required) {
    const name = join(field, required[1]!);
    return { field: name, message: `${name} is required` };
  }
  const unknown = /^Field "(\w+)" is not defined by type/.exec(reason);
  if (unknown) {
    const name = join(field, unknown[1]!);
    return { field: name, message: `${name} is not a known field` };
  }
  const scalar = /^(\w+) cannot represent/.exec(reason);
  if (scalar && KIND[scalar[1]!]) {
    const range = /non 32-bit|non-safe|outside/i.test(reason) ? ' within the allowed range' : '';
    return { field, message: `${field} must be ${KIND[scalar[1]!]}${range}` };
  }
  if (/^Value .* does not exist in ".*" enum/.test(reason)) {
    return { field, message: `${field} is not one of the allowed values` };
  }
  if (/^Expected type ".*" to be an object/.test(reason)) return { field, message: `${field} must be an object` };
  if (/not to be null|found null/.test(reason)) return { field, message: `${field} must not be null` };
  // A custom scalar's own explanation speaks of the value, not of GraphQL; its type name is dropped.
  return { field, message: `${field} is not valid: ${reason.replace(/"[A-Z]\w*!?"\s*/g, '').trim()}` };
}

/** A public error in REST terms: GraphQL variable errors rewritten, anything else unchanged. */
export function toRestError(e: PublicError): PublicError {
  if (e.code === 'INVALID_NETWORK') {
    // GraphQL's own words about the Network enum name a variable: REST names the parameter.
    const reason = (e.details as { reason?: unknown } | undefined)?.reason;
    if (typeof reason !== 'string') return e;
    const rest = restValidationMessage(reason);
    return { ...e, details: { field: rest?.field ?? 'network' } };
  }
  if (e.code !== 'VALIDATION_FAILED') return e;
  // A parameter read by the direct routes: its field is known, the wording is the scalar's.
  const field = (e.details as { field?: unknown } | undefined)?.field;
  const scalar = /^(\w+) cannot represent/.exec(e.message);
  if (typeof field === 'string' && scalar && KIND[scalar[1]!]) {
    return { ...e, message: `${field} must be ${KIND[scalar[1]!]}` };
  }
  const rest = restValidationMessage(e.message);
  if (!rest) return e;
  return { ...e, message: rest.message, details: { field: rest.field } };
}

/** Every place in `value` where `type` wants a list and the JSON has something else. */
function firstNonArray(type: GraphQLInputType, value: unknown, field: string): string | undefined {
  if (value === null || value === undefined) return undefined;
  const nullable = getNullableType(type);
  if (isListType(nullable)) {
    if (!Array.isArray(value)) return field;
    for (const [i, item] of value.entries()) {
      const found = firstNonArray(nullable.ofType as GraphQLInputType, item, `${field}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (isInputObjectType(nullable) && typeof value === 'object' && !Array.isArray(value)) {
    for (const [name, f] of Object.entries(nullable.getFields())) {
      const found = firstNonArray(f.type, (value as Record<string, unknown>)[name], join(field, name));
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * Refuses a body whose JSON types GraphQL would quietly coerce: a single value where a list is
 * expected (`{"scopes": "read"}` is not `["read"]`). Only the body's variables are checked; query
 * and path parameters are text by nature.
 */
export function assertStrictBodyTypes(args: ExecutionArgs, bodyFields: ReadonlySet<string>): void {
  const op = args.document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const schema: GraphQLSchema = args.schema;
  for (const definition of op?.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    if (name !== 'input' && !bodyFields.has(name)) continue;
    const type = typeFromAST(schema, definition.type) as GraphQLInputType | undefined;
    if (!type) continue;
    const field = firstNonArray(type, args.variableValues?.[name], name === 'input' ? 'body' : name);
    if (field) throw new AppError('VALIDATION_FAILED', `${field} must be an array`, { field });
  }
}

/**
 * The HTTP JSON face's one writer of an error (REST, the direct routes, the edge's refusals, the
 * ops routes): its status, its headers (Retry-After...) and the body of docs/api.md, "Conventions". An answer
 * already begun cannot become an error: its connection is closed, so the client sees it cut short.
 */
export function sendErrorResponse(res: http.ServerResponse, e: PublicError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = JSON.stringify(errorBody(e));
  res.statusCode = e.status;
  if (e.headers) for (const [k, v] of Object.entries(e.headers)) res.setHeader(k, v);
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(text));
  res.end(text);
}
