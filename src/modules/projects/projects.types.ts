import { IsOptional, IsString, MaxLength } from 'class-validator';
import { Field, ID, InputType, ObjectType } from 'type-graphql';

@ObjectType({ description: 'A logical group of contracts and API keys.' })
export class Project {
  @Field(() => ID, { description: 'Project id (UUID).' })
  id!: string;

  @Field({ description: 'Project name (1 to 100 characters).' })
  name!: string;

  @Field(() => String, { nullable: true, description: 'Free text description.' })
  description!: string | null;

  @Field(() => ID, { description: 'Id of the developer who owns the project.' })
  ownerId!: string;

  @Field({ description: 'When the project was created (ISO-8601 UTC).' })
  createdAt!: Date;
}

@InputType({ description: 'A new project.' })
export class CreateProjectInput {
  @Field({ description: 'Project name, 1 to 100 characters.' })
  @IsString()
  name!: string;

  @Field(() => String, { nullable: true, description: 'Optional description, up to 1000 characters.' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  description?: string | null;
}
