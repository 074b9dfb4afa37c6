import { IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { NetworkName } from '../../kernel/network-name';
import { Project } from '../projects';

@ObjectType({ description: 'A developer account, created on the first EDS login.' })
export class Developer {
  @Field(() => ID, { description: 'Developer id (UUID).' })
  id!: string;

  @Field({ description: 'Common name (CN) of the signing certificate.' })
  displayName!: string;

  @Field({ description: 'Subject distinguished name of the signing certificate.' })
  subject!: string;

  @Field({ description: 'Address of the custodial wallet (EIP-55), the same on both networks.' })
  walletAddress!: string;

  @Field({ description: 'When the developer first logged in (ISO-8601 UTC).' })
  createdAt!: Date;

  @Field({ description: 'When the developer last logged in (ISO-8601 UTC).' })
  lastLoginAt!: Date;
}

@ObjectType({ description: 'A custodial wallet of a developer.' })
export class DeveloperWallet {
  @Field({ description: 'Wallet address (EIP-55).' })
  address!: string;

  @Field(() => [NetworkName], { description: 'Networks on which the address is used.' })
  networks!: NetworkName[];
}

@ObjectType({ description: 'A developer profile with its wallets and projects.' })
export class DeveloperDetails extends Developer {
  @Field(() => [DeveloperWallet], { description: 'Custodial wallets of the developer.' })
  wallets!: DeveloperWallet[];

  @Field(() => [Project], { description: 'Projects of the developer, oldest first.' })
  projects!: Project[];
}

@ObjectType({ description: 'A login challenge: sign `nonce` with the EDS key and send it to edsLogin.' })
export class EdsChallenge {
  @Field(() => ID, { description: 'Challenge id to send back with the signature.' })
  challengeId!: string;

  @Field({ description: 'Random single-use string to sign (UTF-8 bytes, SHA-256).' })
  nonce!: string;

  @Field({ description: 'The challenge is refused after this instant (5 minutes).' })
  expiresAt!: Date;
}

@InputType({ description: 'An EDS login: either certificate and signature, or a CMS SignedData.' })
export class EdsLoginInput {
  @Field(() => ID, { description: 'Id of the challenge whose nonce was signed.' })
  @IsUUID('all', { message: 'challengeId must be a UUID' })
  challengeId!: string;

  @Field({ nullable: true, description: 'X.509 signing certificate, PEM or base64 DER.' })
  @IsOptional()
  @IsString()
  @MaxLength(65536)
  certificate?: string;

  @Field({ nullable: true, description: 'Base64 signature over the nonce (SHA-256; RSA, RSA-PSS or ECDSA).' })
  @IsOptional()
  @IsString()
  @MaxLength(65536)
  signature?: string;

  @Field({ nullable: true, description: 'Base64 CMS/PKCS#7 SignedData over the nonce, with the signer certificate.' })
  @IsOptional()
  @IsString()
  @MaxLength(262144)
  cms?: string;
}

@ObjectType({ description: 'A developer access token (JWT) and the developer it was issued to.' })
export class LoginResult {
  @Field({ description: 'JWT to send as `Authorization: Bearer <accessToken>`.' })
  accessToken!: string;

  @Field({ description: 'Always `Bearer`.' })
  tokenType!: string;

  @Field(() => Int, { description: 'Lifetime of the token in seconds (43200 = 12 hours).' })
  expiresIn!: number;

  @Field({ description: 'When the token expires (ISO-8601 UTC).' })
  expiresAt!: Date;

  @Field(() => Developer, { description: 'The logged-in developer.' })
  developer!: Developer;
}

@ObjectType({ description: 'The answer to a logout: every token issued up to `revokedBefore` no longer works.' })
export class LogoutResult {
  @Field({ description: 'Tokens of the developer issued up to this moment are refused (ISO-8601 UTC).' })
  revokedBefore!: Date;
}
