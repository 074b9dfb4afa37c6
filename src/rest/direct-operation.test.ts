import {
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  type ExecutionArgs,
} from 'graphql';
import type { RequestContext } from '../auth/request-context';
import { AppError } from '../kernel/errors/app-error';
import { GraphQLJSON } from '../kernel/json-scalar';
import { directOperation, type DirectReply, type HotRead } from './direct-route';
import type { RestRoute } from './routes';

// directOperation's hot reads (docs/api.md, "Gateway": hits answered at once): a value the hot read
// gives is answered as the executed operation would answer the same value from its resolver.

const Result = new GraphQLObjectType({
  name: 'Result',
  fields: { result: { type: GraphQLJSON }, blockNumber: { type: GraphQLInt } },
});

let resolved: Array<Record<string, unknown>> = [];
let resolverValue: unknown;

const schema = new GraphQLSchema({
  query: new GraphQLObjectType({ name: 'Query', fields: { ping: { type: GraphQLString } } }),
  mutation: new GraphQLObjectType({
    name: 'Mutation',
    fields: {
      read: {
        type: Result,
        args: {
          id: { type: new GraphQLNonNull(GraphQLID) },
          method: { type: new GraphQLNonNull(GraphQLString) },
          args: { type: GraphQLJSON },
        },
        resolve: (_root, args: Record<string, unknown>) => {
          resolved.push(args);
          return resolverValue;
        },
      },
      write: {
        type: Result,
        args: {
          input: {
            type: new GraphQLInputObjectType({ name: 'WriteInput', fields: { to: { type: GraphQLString } } }),
          },
        },
        resolve: () => null,
      },
    },
  }),
});

const route: RestRoute = {
  area: 'devportal',
  method: 'POST',
  path: '/contracts/{id}/query/{method}',
  field: 'Mutation.read',
  auth: 'api-key',
  direct: true,
  asHeaders: { blockNumber: { name: 'x-block-number', description: 'block' } },
  summary: 'read',
};

const operationOf = (hot?: HotRead) =>
  directOperation({
    schema,
    route,
    ignore: [],
    depthLimit: 3,
    parseBody: (raw) => (raw === undefined ? {} : (JSON.parse(String(raw)) as Record<string, unknown>)),
    prepare: (args: ExecutionArgs) => args,
    publicError: (e) =>
      e instanceof AppError
        ? { status: 400, code: e.code, message: e.message }
        : { status: 500, code: 'INTERNAL', message: String(e) },
    hot,
  });

const call = (args: unknown) => ({
  params: { id: 'c1', method: 'balanceOf' },
  query: {},
  rawBody: Buffer.from(JSON.stringify({ args })),
  context: () => ({ requestId: 'rid' }) as RequestContext,
});

const wire = (r: DirectReply) => ({ status: r.status, headers: r.headers, text: JSON.stringify(r.body) });

beforeEach(() => {
  resolved = [];
  resolverValue = undefined;
});

describe('directOperation with a hot read', () => {
  const value = { result: { amount: '12', owner: '0xabc' }, blockNumber: 7 };

  it('answers the hot value at once, as the executed operation answers the same value', async () => {
    const seen: Array<Record<string, unknown>> = [];
    const hotRun = operationOf((variables) => {
      seen.push(variables);
      return value;
    });
    const hot = hotRun(call(['0x01']));
    expect(hot).not.toBeInstanceOf(Promise);
    expect(resolved).toEqual([]);
    expect(seen).toEqual([{ id: 'c1', method: 'balanceOf', args: ['0x01'] }]);

    resolverValue = value;
    const executed = await operationOf()(call(['0x01']));
    expect(resolved).toHaveLength(1);
    expect(wire(hot as DirectReply)).toEqual(wire(executed));
    expect(wire(executed)).toEqual({
      status: 201,
      headers: { 'x-block-number': '7' },
      text: '{"result":{"amount":"12","owner":"0xabc"}}',
    });
  });

  it('runs the operation when the hot read cannot tell', async () => {
    resolverValue = { result: '5', blockNumber: null };
    const reply = await operationOf(() => undefined)(call([]));
    expect(resolved).toHaveLength(1);
    expect(wire(reply)).toEqual({ status: 201, headers: {}, text: '{"result":"5"}' });
  });

  it('leaves arguments with control characters to the operation, never to the hot read', async () => {
    const hot = jest.fn(() => value);
    resolverValue = value;
    await operationOf(hot)(call(['a\u0000b']));
    expect(hot).not.toHaveBeenCalled();
    expect(resolved).toEqual([{ id: 'c1', method: 'balanceOf', args: ['a\u0000b'] }]);
  });

  it('answers a failure of the hot read in the error shape', async () => {
    const reply = await operationOf(() => {
      throw new AppError('VALIDATION_FAILED', 'no');
    })(call([]));
    expect(reply).toEqual({ status: 400, body: { error: { code: 'VALIDATION_FAILED', message: 'no' } } });
    expect(resolved).toEqual([]);
  });

  it('waits for a hot read that answers later: its value, the operation, or its error', async () => {
    const later = (outcome: () => unknown) => operationOf(() => Promise.resolve().then(outcome));
    const answered = await later(() => value)(call([]));
    expect(resolved).toEqual([]);
    expect(wire(answered)).toEqual({
      status: 201,
      headers: { 'x-block-number': '7' },
      text: '{"result":{"amount":"12","owner":"0xabc"}}',
    });
    resolverValue = { result: '5', blockNumber: 8 };
    const executed = await later(() => undefined)(call([]));
    expect(resolved).toHaveLength(1);
    expect(wire(executed)).toEqual({ status: 201, headers: { 'x-block-number': '8' }, text: '{"result":"5"}' });
    const refused = await later(() => {
      throw new AppError('RATE_LIMITED', 'slow down');
    })(call([]));
    expect(refused).toEqual({ status: 400, body: { error: { code: 'RATE_LIMITED', message: 'slow down' } } });
    expect(resolved).toHaveLength(1);
  });

  it('is refused at start for a field with an input object argument', () => {
    expect(() =>
      directOperation({
        schema,
        route: { ...route, field: 'Mutation.write', asHeaders: undefined },
        ignore: [],
        depthLimit: 3,
        parseBody: () => ({}),
        prepare: (args: ExecutionArgs) => args,
        publicError: () => ({ status: 500, code: 'INTERNAL', message: 'x' }),
        hot: () => undefined,
      }),
    ).toThrow(/scalar arguments only/);
  });
});
