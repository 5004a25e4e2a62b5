// `npm run lint:openapi`: Spectral (spectral:oas) and Redocly CLI lint the OpenAPI document the function serves
// (0 errors expected; the warnings left are justified in docs/API.md, test/api/openapi-lint.test.ts holds them).
// `npm run client`: regenerates the typed client's types (client/schema.d.ts) from it.
import { join } from 'node:path';
import { repoRoot } from '../stack/config.ts';
import { clientTypes, clientTypesFile, openApiDocument } from './openapi.ts';
import { lintOpenApi } from './openapi-lint.ts';

async function lint(): Promise<number> {
  const findings = await lintOpenApi(await openApiDocument());
  for (const finding of findings) {
    console.log(`${finding.linter} ${finding.severity} ${finding.rule} ${finding.where}: ${finding.message}`);
  }
  const errors = findings.filter((finding) => finding.severity === 'error').length;
  console.log(`${errors} errors, ${findings.length - errors} warnings (docs/API.md says why each warning stays)`);
  return errors === 0 ? 0 : 1;
}

async function client(): Promise<number> {
  await Deno.writeTextFile(join(repoRoot, clientTypesFile), await clientTypes(await openApiDocument()));
  console.log(`wrote ${clientTypesFile}`);
  return 0;
}

const task = Deno.args[0];
if (task === 'lint') Deno.exit(await lint());
else if (task === 'client') Deno.exit(await client());
else throw new Error(`unknown task "${task}": use lint or client`);
