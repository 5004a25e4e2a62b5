// `npm run lint:openapi`: Redocly CLI lints the OpenAPI document the function serves (0 errors expected).
// `npm run client`: regenerates the typed client's types (client/schema.d.ts) from it.
import { join } from 'node:path';
import { repoRoot } from '../stack/config.ts';
import { clientTypes, clientTypesFile, openApiDocument } from './openapi.ts';

async function lint(): Promise<number> {
  const file = await Deno.makeTempFile({ prefix: 'openapi-', suffix: '.json' });
  try {
    await Deno.writeTextFile(file, JSON.stringify(await openApiDocument(), null, 2));
    const redocly = await new Deno.Command(join(repoRoot, 'node_modules', '.bin', 'redocly'), {
      args: ['lint', file],
      cwd: repoRoot,
      // Offline and quiet: no usage report, no check for a newer version.
      env: { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      stdin: 'null',
    }).spawn().status;
    return redocly.code;
  } finally {
    await Deno.remove(file);
  }
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
