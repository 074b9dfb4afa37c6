import { GraphQLSafeInt } from 'graphql-scalars';
import { Field, Float, ID, ObjectType } from 'type-graphql';

@ObjectType({ description: 'Gateway usage over a period.' })
export class UsageStats {
  @Field(() => GraphQLSafeInt, {
    description: 'Gateway and JSON-RPC door calls made with one of the developer’s valid keys.',
  })
  requests!: number;

  @Field(() => GraphQLSafeInt, { description: 'Of which query calls, whatever the outcome.' })
  queries!: number;

  @Field(() => GraphQLSafeInt, { description: 'Of which invoke calls, whatever the outcome.' })
  invokes!: number;

  @Field(() => GraphQLSafeInt, {
    description: 'Of which JSON-RPC door calls (each call of a batch counts), whatever the outcome.',
  })
  rpc!: number;

  @Field(() => GraphQLSafeInt, {
    description: 'Calls answered with a status of 400 or more (JSON-RPC door: answered with an error object).',
  })
  errors!: number;

  @Field({ description: 'Gas used by invokes (decimal string).' })
  gasUsed!: string;

  @Field(() => Float, { description: 'Mean latency in milliseconds (0 without calls).' })
  avgLatencyMs!: number;
}

@ObjectType({ description: 'Usage over the whole window.' })
export class UsageTotals extends UsageStats {
  @Field(() => Float, {
    description:
      '95th percentile latency in milliseconds, as the upper bound of its histogram bucket (0 without calls).',
  })
  p95LatencyMs!: number;
}

@ObjectType({ description: 'Usage of one UTC day.' })
export class DailyUsage extends UsageStats {
  @Field({ description: 'The day, YYYY-MM-DD (UTC).' })
  date!: string;
}

@ObjectType({ description: 'Usage of one contract.' })
export class ContractUsage {
  @Field(() => ID, { description: 'Contract id.' })
  contractId!: string;

  @Field(() => String, { nullable: true, description: 'Contract name.' })
  name!: string | null;

  @Field(() => GraphQLSafeInt, { description: 'Calls.' })
  requests!: number;

  @Field(() => GraphQLSafeInt, { description: 'Query calls.' })
  queries!: number;

  @Field(() => GraphQLSafeInt, { description: 'Invoke calls.' })
  invokes!: number;

  @Field(() => GraphQLSafeInt, { description: 'Calls answered with 400 or more.' })
  errors!: number;

  @Field({ description: 'Gas used (decimal string).' })
  gasUsed!: string;
}

@ObjectType({ description: 'Usage of one API key.' })
export class ApiKeyUsage {
  @Field(() => ID, { description: 'Key id.' })
  keyId!: string;

  @Field(() => String, { nullable: true, description: 'Key name.' })
  name!: string | null;

  @Field({ description: 'Key prefix.' })
  prefix!: string;

  @Field(() => GraphQLSafeInt, { description: 'Calls.' })
  requests!: number;

  @Field(() => GraphQLSafeInt, { description: 'Calls answered with 400 or more.' })
  errors!: number;
}

@ObjectType({ description: 'Usage of one contract method.' })
export class MethodUsage {
  @Field(() => ID, { description: 'Contract id.' })
  contractId!: string;

  @Field({ description: 'Function signature.' })
  method!: string;

  @Field(() => GraphQLSafeInt, { description: 'Calls.' })
  requests!: number;

  @Field(() => GraphQLSafeInt, { description: 'Calls answered with 400 or more.' })
  errors!: number;

  @Field(() => Float, { description: 'Mean latency in milliseconds.' })
  avgLatencyMs!: number;
}

@ObjectType({ description: 'Gateway usage analytics of a developer.' })
export class Analytics {
  @Field(() => GraphQLSafeInt, { description: 'Window length in days (1 to 90).' })
  days!: number;

  @Field({ description: 'Start of the window: UTC midnight of its first day.' })
  from!: Date;

  @Field({ description: 'End of the window: now.' })
  to!: Date;

  @Field(() => UsageTotals, { description: 'Totals over the window.' })
  totals!: UsageTotals;

  @Field(() => [DailyUsage], { description: 'One entry per day, oldest first, zero-filled.' })
  daily!: DailyUsage[];

  @Field(() => [ContractUsage], { description: 'By contract, busiest first.' })
  byContract!: ContractUsage[];

  @Field(() => [ApiKeyUsage], { description: 'By API key, busiest first.' })
  byApiKey!: ApiKeyUsage[];

  @Field(() => [MethodUsage], { description: 'By contract method, busiest first.' })
  byMethod!: MethodUsage[];
}
