import { setImmediate as nextTurn } from 'node:timers/promises';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import {
  GraphQLError,
  OverlappingFieldsCanBeMergedRule,
  parse,
  printSchema,
  specifiedRules,
  validate,
  visit,
  BREAK,
  Kind,
  type DocumentNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type GraphQLSchema,
  type ValidationRule,
} from 'graphql';
import { getComplexity, simpleEstimator, type ComplexityEstimator } from 'graphql-query-complexity';
import { LRUCache } from 'lru-cache';
import { OVERLAP_INLINE_MAX_WORK, OverlapChecker, overlapWork } from './overlap-check';

/** Most lexical tokens in one document; checked while parsing, so a huge document costs no more than this. */
export const MAX_QUERY_TOKENS = 10_000;
/** Most aliases in one operation (docs/api.md, "Conventions"). */
export const MAX_QUERY_ALIASES = 100;
/** Deepest selection accepted; the schema's own types nest far less than this. */
export const MAX_QUERY_DEPTH = 10;
/** Most directives in one operation. */
export const MAX_QUERY_DIRECTIVES = 50;
/** Most fields one operation may select (aliases count each time they repeat a field). */
export const MAX_QUERY_COMPLEXITY = 1000;
/** Most blocks one operation may make the service read from a node (docs/api.md, "Conventions"). */
export const MAX_CHAIN_BLOCK_READS = 5000;
/**
 * Most contract documents (`contractOpenApi`, `contractSwagger`) one operation may ask for: each is up
 * to megabytes, and every further one is serialised on the event loop (docs/api.md, "GraphQL
 * specifics"; 20 aliases of the largest held it 1.9 s).
 */
export const MAX_CONTRACT_DOCUMENTS = 1;
/** Most nodes the cost estimator walks; a document over it cannot be measured and is refused. */
const MAX_COST_NODES = 10_000;

type Args = Record<string, unknown>;
const count = (v: unknown, fallback: number): number => (typeof v === 'number' && v > 0 ? v : fallback);

/**
 * Blocks a root field may read from a node, by its arguments: an address scans `scan` blocks
 * (500 when the index lags), a block list reads `limit` blocks, a lookup reads a few (a number:
 * whatever its arguments).
 */
const CHAIN_BLOCK_READS: Record<string, number | ((args: Args) => number)> = {
  'Query.address': (a) => count(a.scan, 500),
  'Query.liveBlocks': (a) => count(a.limit, 10),
  'Query.networkStatus': 20,
  'Query.block': 1,
  'Query.transaction': 1,
  'Query.search': 1,
  'Query.walletBalance': 1,
  'Query.walletHistory': 1,
};

/** Whether a field's cost depends on its arguments (REST routes check those per call). */
export const costDependsOnArguments = (field: string): boolean => typeof CHAIN_BLOCK_READS[field] === 'function';

const CHAIN_FIELD_NAMES = new Set(
  Object.keys(CHAIN_BLOCK_READS)
    .filter(costDependsOnArguments)
    .map((f) => f.split('.')[1]!),
);

/**
 * Whether variables can change a document's cost: a variable in @skip/@include or in the arguments
 * of a field that reads the chain (by name, whatever its parent: a conservative answer).
 */
export function costDependsOnVariables(document: DocumentNode): boolean {
  let depends = false;
  const hasVariable = (node: object): boolean => {
    let found = false;
    visit(node as DocumentNode, {
      Variable() {
        found = true;
        return BREAK;
      },
    });
    return found;
  };
  visit(document, {
    Directive(node) {
      if ((node.name.value === 'skip' || node.name.value === 'include') && hasVariable(node)) {
        depends = true;
        return BREAK;
      }
      return undefined;
    },
    Field(node) {
      if (CHAIN_FIELD_NAMES.has(node.name.value) && (node.arguments ?? []).some((a) => hasVariable(a))) {
        depends = true;
        return BREAK;
      }
      return undefined;
    },
  });
  return depends;
}
const chainReadsEstimator: ComplexityEstimator = ({ type, field, args, childComplexity }) => {
  const reads = CHAIN_BLOCK_READS[`${type.name}.${field.name}`] ?? 0;
  return (typeof reads === 'function' ? reads(args) : reads) + childComplexity;
};

const CONTRACT_DOCUMENT_FIELDS = new Set(['Query.contractOpenApi', 'Query.contractSwagger']);

/** The field names (after the type's) of `Type.field` keys. */
const namesOf = (fields: Iterable<string>): Set<string> => new Set([...fields].map((f) => f.split('.')[1]!));
const BLOCK_READING_NAMES = namesOf(Object.keys(CHAIN_BLOCK_READS));
const CONTRACT_DOCUMENT_NAMES = namesOf(CONTRACT_DOCUMENT_FIELDS);

/** Whether the document selects, anywhere (any operation or fragment), a field of one of these names. */
function selectsAny(document: DocumentNode, names: Set<string>): boolean {
  let found = false;
  visit(document, {
    Field(node) {
      if (!names.has(node.name.value)) return undefined;
      found = true;
      return BREAK;
    },
  });
  return found;
}
const contractDocumentsEstimator: ComplexityEstimator = ({ type, field, childComplexity }) =>
  (CONTRACT_DOCUMENT_FIELDS.has(`${type.name}.${field.name}`) ? 1 : 0) + childComplexity;

/** A refusal of the pipeline: the caller's document, answered with VALIDATION_FAILED. */
const refusal = (message: string) => new GraphQLError(message);

/** The estimator's refusal of a document it could not measure (see admitDocument for what follows). */
class UnmeasurableError extends GraphQLError {}

/**
 * Parses with the token limit: a flood of tokens stops the parser, not the service. graphql-js's
 * own `maxTokens` (made for this attack; graphql-armor's max-tokens counts the same tokens through
 * a proxy of the lexer, about half as fast).
 */
export function parseLimited(source: string): DocumentNode {
  return parse(source, { maxTokens: MAX_QUERY_TOKENS });
}

/** Limits that need no schema knowledge and are linear in the document: run before validation. */
const STATIC_RULES: ValidationRule[] = [
  maxAliasesRule({ n: MAX_QUERY_ALIASES, exposeLimits: true }),
  maxDepthRule({ n: MAX_QUERY_DEPTH, exposeLimits: true }),
  maxDirectivesRule({ n: MAX_QUERY_DIRECTIVES, exposeLimits: true }),
];
/**
 * graphql-js's rules less the quadratic one, which runs last: inline for a document where its work
 * is small, in the overlap worker for any other (src/schema/overlap-check.ts).
 */
const LINEAR_RULES = specifiedRules.filter((r) => r !== OverlappingFieldsCanBeMergedRule);

/**
 * The cost limits: fields selected, blocks read from a node and contract documents. A document the estimator cannot
 * measure (over its node limit, fragments it cannot follow) is refused, never let through.
 */
export function assertCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | undefined | null,
  operationName?: string | null,
): void {
  runToEnd(costSteps(schema, document, variables, operationName));
}

/**
 * assertCost in steps: each measure walks the whole operation, and a step ends after each. The
 * blocks and contract documents are not measured in a document that selects no field that counts
 * for them: every estimator walks the same nodes and reads the same arguments, so a measure that
 * could fail has already failed in the first, and the others would be 0.
 */
function* costSteps(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | undefined | null,
  operationName?: string | null,
): Steps<void> {
  const measure = (estimators: ComplexityEstimator[]): number => {
    try {
      return getComplexity({
        schema,
        query: document,
        variables: variables ?? {},
        operationName: operationName ?? undefined,
        estimators,
        maxQueryNodes: MAX_COST_NODES,
      });
    } catch (error) {
      // Invalid variables are reported by graphql-js's own words; anything else cannot be measured.
      if (error instanceof GraphQLError && error.message.startsWith('Variable "$')) throw error;
      throw new UnmeasurableError(
        `The operation's cost cannot be measured (${error instanceof Error ? error.message : 'unknown reason'}), so it is refused`,
      );
    }
  };
  const cost = measure([simpleEstimator({ defaultComplexity: 1 })]);
  if (cost > MAX_QUERY_COMPLEXITY) {
    throw refusal(`The operation is too complex: cost ${cost} exceeds the limit of ${MAX_QUERY_COMPLEXITY}`);
  }
  yield;
  const blocks = selectsAny(document, BLOCK_READING_NAMES) ? measure([chainReadsEstimator]) : 0;
  if (blocks > MAX_CHAIN_BLOCK_READS) {
    throw refusal(
      `The operation may read ${blocks} blocks from the node, over the limit of ${MAX_CHAIN_BLOCK_READS} for one operation`,
    );
  }
  yield;
  const documents = selectsAny(document, CONTRACT_DOCUMENT_NAMES) ? measure([contractDocumentsEstimator]) : 0;
  if (documents > MAX_CONTRACT_DOCUMENTS) {
    throw refusal(
      `The operation asks for ${documents} contract documents (contractOpenApi, contractSwagger); at most ${MAX_CONTRACT_DOCUMENTS} per operation`,
    );
  }
}

/**
 * Work cut into steps: the generator yields between two steps, each a single pass over the
 * document (parsing, one validation pass, one cost measure). `runToEnd` runs them all at once;
 * `runInTurns` gives the event loop back between them once a turn has used its budget.
 */
type Steps<T> = Generator<void, T, void>;

/** Runs every step at once, in the caller's turn. */
export function runToEnd<T>(steps: Steps<T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/**
 * How long admission may hold the event loop in one turn before it gives the loop back (between two
 * steps; a step runs whole). A document seen for the first time passes parsing, three validation
 * passes and three cost measures: 100 aliases of a field took about 100 ms of CPU in one turn
 * (graphql-js's checks run several times slower outside NODE_ENV=production), over the 100 ms a
 * request may hold the loop (docs/api.md, "GraphQL specifics"). A small document ends within the
 * budget: no turn is given back, nothing is added to its latency.
 */
export const ADMISSION_TURN_BUDGET_MS = 10;

/**
 * Runs the steps, giving the event loop back (setImmediate) whenever the current turn has used
 * `budgetMs`, also after the last step, so that what the caller runs next starts a fresh turn.
 */
export async function runInTurns<T>(steps: Steps<T>, budgetMs = ADMISSION_TURN_BUDGET_MS): Promise<T> {
  let started = performance.now();
  for (;;) {
    const next = steps.next();
    if (performance.now() - started >= budgetMs) {
      await nextTurn();
      started = performance.now();
    }
    if (next.done) return next.value;
  }
}

/** What the pipeline answers: the admitted document, or the errors that refuse it. */
export type Admission =
  { document: DocumentNode; errors?: undefined } | { document?: undefined; errors: GraphQLError[] };

/**
 * Parse under the token limit → alias, depth and directive limits → cost → graphql-js validation
 * (the quadratic overlap rule last). All in the caller's turn, the overlap rule included whatever
 * its work: the pipeline (`createGraphQLPipeline`) runs it off the event loop when it can be heavy.
 */
export function admitDocument(
  schema: GraphQLSchema,
  source: string,
  variables: Record<string, unknown> | undefined | null,
  operationName?: string | null,
): Admission {
  return runToEnd(admissionSteps(schema, source, variables, operationName)) as Admission;
}

/** The overlap rule's refusal of a document it could not check within its time limit. */
export const TOO_COSTLY_TO_VALIDATE = 'The document is too costly to validate';

/**
 * The overlap rule over a document in the overlap worker: its errors rebuilt as the inline rule
 * gives them (same messages, same locations in the same source), or the refusal of a document it
 * could not check in time (VALIDATION_FAILED), or SERVICE_UNAVAILABLE when too many wait.
 */
async function overlapInWorker(
  checker: OverlapChecker,
  source: string,
  { document, keep }: OverlapLeft['overlapLeft'],
  client: string | undefined,
): Promise<Admission> {
  let outcome;
  try {
    outcome = await checker.check(source, keep, client);
  } catch (error) {
    return {
      errors: [
        new GraphQLError(error instanceof Error ? error.message : String(error), { originalError: error as Error }),
      ],
    };
  }
  if (outcome.kind === 'too-costly') {
    return {
      errors: [
        refusal(`${TOO_COSTLY_TO_VALIDATE}: checking that its fields can be merged took over ${checker.timeoutMs} ms`),
      ],
    };
  }
  if (outcome.errors.length === 0) return { document };
  const documentSource = document.loc?.source;
  return {
    errors: outcome.errors.map(({ message, positions }) =>
      positions && documentSource
        ? new GraphQLError(message, { source: documentSource, positions })
        : new GraphQLError(message),
    ),
  };
}

/** Whether a document's overlap rule runs in the overlap worker: its work over OVERLAP_INLINE_MAX_WORK. */
export const overlapIsHeavy = (document: DocumentNode): boolean => overlapWork(document) > OVERLAP_INLINE_MAX_WORK;

/**
 * The part of a document its checks run over: with an operation name that names one of several
 * operations, that operation, the fragments it reaches and any definition that is not an operation
 * or a fragment (refused by validation); otherwise the whole document. `keep` lists the indexes of
 * the definitions kept (undefined: all). The cost limits measure the operation that runs, and
 * validation runs over what it measured: an unused operation of 9,000 fields once made validation
 * hold the event loop a second (docs/api.md, "GraphQL specifics"). The other operations never run.
 */
export function checkedPart(
  document: DocumentNode,
  operationName?: string | null,
): { document: DocumentNode; keep?: number[] } {
  if (typeof operationName !== 'string') return { document };
  const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  const named = operations.filter((d) => d.name?.value === operationName);
  if (operations.length < 2 || named.length !== 1) return { document };
  const fragments = new Map<string, FragmentDefinitionNode[]>();
  for (const d of document.definitions) {
    if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, [...(fragments.get(d.name.value) ?? []), d]);
  }
  // The fragments the operation reaches, followed without recursion (a chain may be long).
  const reached = new Set<string>();
  const pending: Array<OperationDefinitionNode | FragmentDefinitionNode> = [named[0]!];
  for (let node = pending.pop(); node; node = pending.pop()) {
    visit(node, {
      FragmentSpread(spread) {
        const name = spread.name.value;
        if (reached.has(name)) return;
        reached.add(name);
        pending.push(...(fragments.get(name) ?? []));
      },
    });
  }
  const keep: number[] = [];
  document.definitions.forEach((d, i) => {
    const kept =
      d.kind === Kind.OPERATION_DEFINITION
        ? d === named[0]
        : d.kind === Kind.FRAGMENT_DEFINITION
          ? reached.has(d.name.value)
          : true;
    if (kept) keep.push(i);
  });
  return { document: { ...document, definitions: keep.map((i) => document.definitions[i]!) }, keep };
}

/** A document admitted up to the overlap rule, which is left to the overlap worker. */
interface OverlapLeft {
  overlapLeft: { document: DocumentNode; checked: DocumentNode; keep?: number[] };
}

/**
 * admitDocument in steps (`runInTurns`): one step per pass over the document. With `leaveOverlap`,
 * a document it says yes to ends before the overlap rule (`OverlapLeft`).
 */
function* admissionSteps(
  schema: GraphQLSchema,
  source: string,
  variables: Record<string, unknown> | undefined | null,
  operationName?: string | null,
  leaveOverlap?: (document: DocumentNode) => boolean,
): Steps<Admission | OverlapLeft> {
  let document: DocumentNode;
  try {
    document = parseLimited(source);
  } catch (error) {
    if (error instanceof GraphQLError) return { errors: [error] };
    throw error;
  }
  const { document: checked, keep } = checkedPart(document, operationName);
  yield;
  try {
    // graphql-armor's rules throw their refusal out of validate.
    const staticErrors = validate(schema, checked, STATIC_RULES);
    if (staticErrors.length > 0) return { errors: [...staticErrors] };
    yield;
    yield* costSteps(schema, checked, variables, operationName);
  } catch (error) {
    // An argument written inline with a value its type refuses (`network: foonet`) stops the
    // estimator, which reads arguments as graphql-js would: graphql-js's validation says what is
    // wrong, in the words the error map knows (INVALID_NETWORK for a Network). It is linear in a
    // document the token limit has bounded; a valid document it cannot measure is still refused.
    if (error instanceof UnmeasurableError) {
      const invalid = validate(schema, checked, LINEAR_RULES);
      if (invalid.length > 0) return { errors: [...invalid] };
    }
    if (error instanceof GraphQLError) return { errors: [error] };
    throw error;
  }
  yield;
  const errors = validate(schema, checked, LINEAR_RULES);
  if (errors.length > 0) return { errors: [...errors] };
  yield;
  if (leaveOverlap?.(checked)) return { overlapLeft: { document, checked, keep } };
  const overlap = validate(schema, checked, [OverlappingFieldsCanBeMergedRule]);
  if (overlap.length > 0) return { errors: [...overlap] };
  return { document };
}

/**
 * The admitted documents the pipeline remembers, and the memory they may take. A parsed document
 * (graphql-js AST with locations) takes 50–200 bytes of heap per character of its source (about 6 KB
 * for a gateway query, 2 KB for `{ __typename }`), and the GraphQL fast path keeps a graphql-jit
 * compilation beside each one it has run twice: counting source characters alone would let a flood
 * of distinct small documents hold gigabytes. An application sends a few hundred distinct documents
 * at most; one that does not fit is parsed and validated again each time, nothing else changes.
 */
export const MAX_ADMITTED_DOCUMENTS = 2_000;
const MAX_ADMITTED_BYTES = 64 * 1024 * 1024;
const AST_BYTES_PER_SOURCE_CHAR = 64;

/** The admission of every GraphQL document, whatever face it came by (HTTP, WebSocket). */
export interface GraphQLPipeline {
  /** How many admitted documents are remembered now (at most MAX_ADMITTED_DOCUMENTS; metric graphql_admitted_documents). */
  readonly cachedDocuments: number;
  /**
   * The admission of one call: a document seen for the first time is admitted in steps, the event
   * loop given back between them once a turn has used ADMISSION_TURN_BUDGET_MS (`runInTurns`).
   */
  admit(
    source: string,
    variables: Record<string, unknown> | undefined | null,
    operationName?: string | null,
    /** Who sent it (its client address): the overlap worker's queue holds few of one client's documents. */
    client?: string,
  ): Promise<Admission>;
  /** Stops the overlap worker (checks waiting or running are answered SERVICE_UNAVAILABLE). */
  close(): Promise<void>;
}

/**
 * admitDocument with a memory of the documents already admitted: a known document is only
 * measured again (its cost depends on the variables), not parsed and validated again.
 */
export function createGraphQLPipeline(
  schema: GraphQLSchema,
  options: { overlap?: OverlapChecker } = {},
): GraphQLPipeline {
  // The overlap worker holds a type-only copy of the schema: all the overlap rule reads.
  const overlap =
    options.overlap ?? new OverlapChecker({ sdl: () => printSchema(schema), maxTokens: MAX_QUERY_TOKENS });
  // A document whose cost no variable can change was measured once, when it was admitted.
  // `measured`: the part of the document the cost is measured over (checkedPart), when measured again.
  const admitted = new LRUCache<string, { document: DocumentNode; measured?: DocumentNode }>({
    max: MAX_ADMITTED_DOCUMENTS,
    maxSize: MAX_ADMITTED_BYTES,
    sizeCalculation: (_doc, key) => Math.max(1, key.length) * AST_BYTES_PER_SOURCE_CHAR,
  });
  return {
    get cachedDocuments() {
      return admitted.size;
    },
    async admit(source, variables, operationName, client) {
      // The cost was measured for the operation named: another name is another admission.
      const key = `${operationName ?? ''}\u0000${source}`;
      const known = admitted.get(key);
      if (known) {
        if (!known.measured) return { document: known.document };
        try {
          await runInTurns(costSteps(schema, known.measured, variables, operationName));
          return { document: known.document };
        } catch (error) {
          if (error instanceof GraphQLError) return { errors: [error] };
          throw error;
        }
      }
      const steps = await runInTurns(admissionSteps(schema, source, variables, operationName, overlapIsHeavy));
      const result = 'overlapLeft' in steps ? await overlapInWorker(overlap, source, steps.overlapLeft, client) : steps;
      if (result.document) {
        // Only the operation that runs and what it uses were measured: only their variables count.
        const measured = checkedPart(result.document, operationName).document;
        admitted.set(key, {
          document: result.document,
          measured: costDependsOnVariables(measured) ? measured : undefined,
        });
      }
      return result;
    },
    close: () => overlap.close(),
  };
}
