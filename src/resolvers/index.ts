import type { ClassType, ContainerType } from 'type-graphql';
import type { ContainerEntry } from '../kernel/domain-manifest';
import { MODULES } from '../modules';

type Manifest = (typeof MODULES)[number];
type NeedsOf<M> = M extends { resolvers: readonly ContainerEntry<infer S>[] } ? S : never;
type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** The services the resolvers are built with: what every manifest's builders ask for. */
export type ResolverServices = Intersection<NeedsOf<Manifest>>;

/** Every manifest, seen as builders of the resolvers from all of the services. */
const manifests: ReadonlyArray<{
  resolvers: readonly ContainerEntry<ResolverServices>[];
  middleware?: readonly ContainerEntry<ResolverServices>[];
}> = MODULES;

/** Every resolver of the schema, in MODULES order; each lives beside its domain in src/modules. */
export const RESOLVERS: readonly ClassType[] = manifests.flatMap((m) => m.resolvers.map((r) => r.type));

/** type-graphql's container: one instance of each resolver (and middleware), built with its services. */
export function resolverContainer(s: ResolverServices): ContainerType {
  const instances = new Map<unknown, object>(
    manifests.flatMap((m) => [...m.resolvers, ...(m.middleware ?? [])].map((r) => [r.type, r.build(s)] as const)),
  );
  return {
    get: (cls: unknown) => {
      const instance = instances.get(cls);
      if (!instance)
        throw new Error(`No instance of ${String((cls as { name?: string }).name)} in the resolver container`);
      return instance;
    },
  };
}
