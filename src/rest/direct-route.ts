import { buildOperationNodeForField } from '@graphql-tools/utils';
import type express from 'express';
import {
  execute,
  GraphQLBoolean,
  isEqualType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  Kind,
  OperationTypeNode,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { AppError } from '../errors/app-error';
import type { RequestContext } from '../server/context';
import { successStatus, type RestRoute } from './routes';

export interface DirectRouteOptions {
  /** The area's schema, as SOFA gets it. */
  schema: GraphQLSchema;
  route: RestRoute;
  /** SOFA's `ignore` list: object types returned whole. */
  ignore: string[];
  depthLimit: number;
  makeContext: (req: express.Request) => RequestContext;
  parseBody: (raw: unknown) => Record<string, unknown>;
  /** Applied to every execution, as for SOFA (the flat body → `input` rule). */
  prepare: (args: ExecutionArgs, body: Record<string, unknown>) => ExecutionArgs;
  /** Answers a failure in the error shape, as SOFA's error handler does (the same mapping). */
  fail: (res: express.Response, error: unknown) => void;
}

/** SOFA's reading of one variable: scalars through the schema's `serialize`, lists element-wise. */
function readVariable(value: unknown, type: GraphQLInputType): unknown {
  if (value === undefined || value === null) return undefined;
  if (isNonNullType(type)) return readVariable(value, type.ofType);
  if (isListType(type)) {
    return (Array.isArray(value) ? value : [value]).map((v) => readVariable(v, type.ofType));
  }
  if (isScalarType(type)) {
    return type.serialize(isEqualType(GraphQLBoolean, type) ? value === 'true' || value === true : value);
  }
  if (isInputObjectType(type)) return typeof value === 'object' ? value : JSON.parse(String(value));
  return value;
}

/**
 * One REST route served without SOFA's HTTP runtime: the operation SOFA generates for the route's
 * field (same document, same variables read from path, query string and body in SOFA's order, same
 * success status, same error mapping), executed straight from express. Used for the gateway's
 * hot routes, where SOFA's request, router and response layers cost more than the call itself
 * (BENCHMARKS.md); the OpenAPI document still comes from SOFA.
 */
export function directRoute(opts: DirectRouteOptions): express.RequestHandler {
  const { schema, route } = opts;
  const [operationType, fieldName] = route.field.split('.') as ['Query' | 'Mutation', string];
  const kind = operationType === 'Query' ? OperationTypeNode.QUERY : OperationTypeNode.MUTATION;
  const root = kind === OperationTypeNode.QUERY ? schema.getQueryType() : schema.getMutationType();
  const field = root?.getFields()[fieldName];
  if (!field) throw new Error(`No field ${route.field} in the REST schema`);
  const operation: OperationDefinitionNode = buildOperationNodeForField({
    kind,
    schema,
    field: fieldName,
    models: [],
    ignore: opts.ignore,
    circularReferenceDepth: opts.depthLimit,
  });
  const document: DocumentNode = { kind: Kind.DOCUMENT, definitions: [operation] };
  const variables = (operation.variableDefinitions ?? []).map((v) => {
    const name = v.variable.name.value;
    const arg = field.args.find((a) => a.name === name);
    if (!arg) throw new Error(`Variable ${name} of ${route.field} is not an argument`);
    return { name, type: arg.type };
  });
  const status = successStatus(route);

  return (req, res, next) => {
    let body: Record<string, unknown>;
    const variableValues: Record<string, unknown> = {};
    try {
      body = opts.parseBody(req.body);
      const params = req.params as Record<string, string>;
      for (const { name, type } of variables) {
        const raw = name in params ? params[name] : (req.query[name] ?? body[name]);
        let value: unknown;
        try {
          value = readVariable(raw, type);
        } catch (e) {
          throw new AppError('VALIDATION_FAILED', e instanceof Error ? e.message : `Invalid value for ${name}`, {
            field: name,
          });
        }
        if (value !== undefined) variableValues[name] = value;
      }
    } catch (e) {
      opts.fail(res, e);
      return;
    }
    const args = opts.prepare(
      { schema, document, variableValues, contextValue: opts.makeContext(req), operationName: operation.name?.value },
      body,
    );
    Promise.resolve(execute(args)).then((result: ExecutionResult) => {
      if (result.errors && result.errors.length > 0) {
        opts.fail(res, result.errors[0]);
        return;
      }
      res.status(status).json((result.data as Record<string, unknown> | null)?.[fieldName] ?? null);
    }, next);
  };
}
