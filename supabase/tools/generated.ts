// Every generated file of the repository, in the order `npm run generate` writes them: a step reads what the
// steps before it wrote (the OpenAPI document, and so the client's types, lists the error codes; the database
// types and the RPC reference read the migrated database). Each file's freshness test renders it with the same
// function and compares. Runs under Deno (`npm run generate`) and Node (the tests), hence node: modules only.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type postgres from 'postgres';
import { databaseTypes, databaseTypesFiles } from './database-types.ts';
import { documentedCodes, messagesOf, renderErrorCodes } from './error-codes.ts';
import { formatTypeScript } from './format.ts';
import { operationCodes, renderOperationCodes, type Source } from './operation-codes.ts';
import { apiFunctions, renderRpcReference, routesByFunction } from './rpc-reference.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

export interface GeneratedFile {
  path: string;
  text: string;
}

/** The files below `dir` (relative to the repository, recursively, in name order) whose names end in `ending`. */
export function sourcesOf(dir: string, ending: string): Source[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name)).flatMap(
    (entry) => {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) return sourcesOf(path, ending);
      return entry.name.endsWith(ending) ? [{ path, text: readFileSync(join(root, path), 'utf8') }] : [];
    },
  );
}

/** Step 1, no database: the error codes per status (from supabase/ERRORS.md) and per operation (from the sources). */
export function errorCodeFiles(): GeneratedFile[] {
  const documented = documentedCodes(readFileSync(join(root, 'supabase/ERRORS.md'), 'utf8'));
  const facade = sourcesOf('functions/api', '.ts');
  const schemas = sourcesOf('supabase/schemas', '.sql');
  const files = [
    {
      path: 'functions/api/lib/error-codes.ts',
      text: renderErrorCodes(
        documented,
        messagesOf([...facade, ...schemas].map(({ text }) => text), documented.codes.keys()),
      ),
    },
    {
      path: 'functions/api/lib/operation-codes.ts',
      text: renderOperationCodes(operationCodes(facade, schemas, new Set(documented.codes.keys()))),
    },
  ];
  return files.map(({ path, text }) => ({ path, text: formatTypeScript(text) }));
}

// Step 2, no database: client/schema.d.ts from the OpenAPI document (supabase/tools/openapi.ts). It imports the
// app, so `npm run generate` runs it in a fresh process, which loads the error codes step 1 just wrote.

/** Step 3, the migrated database at `url` (no TLS): the types supabase-js takes, in both places. */
export function databaseTypeFiles(url: string): GeneratedFile[] {
  const text = databaseTypes(url);
  return databaseTypesFiles.map((path) => ({ path, text }));
}

/** Step 4, the same database: docs/RPC.md, each API function beside the route answering its JSON. */
export async function rpcReferenceFile(sql: postgres.Sql): Promise<GeneratedFile> {
  const routes = routesByFunction(sourcesOf('functions/api/routes', '.ts').map(({ text }) => text));
  return { path: 'docs/RPC.md', text: renderRpcReference(await apiFunctions(sql), routes) };
}
