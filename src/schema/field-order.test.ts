// The webhooks resolver, the last domain with root fields in MODULES, is defined before any other:
// type-graphql alone would put its fields first.
import { WebhooksResolver } from '../modules/webhooks/webhooks.resolver';
import { getMetadataStorage } from 'type-graphql';
import { MODULES } from '../modules';
import { RESOLVERS } from '../resolvers';
import { buildPrintableSchema } from './build-schema';

describe('schema field order', () => {
  it('follows MODULES, whichever resolver the program defined first', async () => {
    expect(getMetadataStorage().queries[0]?.target).toBe(WebhooksResolver);
    expect(MODULES[0].name).toBe('accounts');
    const schema = await buildPrintableSchema();
    const owner = new Map(
      [...getMetadataStorage().queries, ...getMetadataStorage().mutations].map((h) => [h.schemaName, h.target]),
    );
    const expected = RESOLVERS.flatMap((r) =>
      getMetadataStorage()
        .queries.filter((h) => h.target === r)
        .map((h) => h.schemaName),
    );
    const fields = Object.keys(schema.getQueryType()!.getFields());
    expect(fields).toEqual(expected);
    expect(fields.slice(0, 2)).toEqual(['me', 'developer']);
    expect(owner.get(fields.at(-1)!)).toBe(WebhooksResolver);
    expect(Object.keys(schema.getMutationType()!.getFields())[0]).toBe('edsChallenge');
  });
});
