/*
 * Until @urql/core, graphql-request and @apollo/client are devDependencies of the project
 * (tests/e2e/graphql-clients.test.ts uses them), typecheck knows them as untyped modules. Delete
 * this file when they are installed: while it exists it hides their own types.
 */
declare module '@urql/core';
declare module 'graphql-request';
declare module '@apollo/client';
