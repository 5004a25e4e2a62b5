// Run by `npm run check`: fails when the Edge Function's module graph reaches a local file outside functions/api/.
// `supabase functions deploy api` uploads that graph (from the entrypoint in supabase/config.toml, beside its
// static_files: function-bundle.ts), so this is what keeps the consumer client (client/), the stack and the tests
// out of the upload.
import { fileURLToPath } from 'node:url';

const functionDir = new URL('../../functions/api/', import.meta.url);
const info = await new Deno.Command(Deno.execPath(), {
  args: [
    'info',
    '--json',
    '--config',
    fileURLToPath(new URL('deno.json', functionDir)),
    fileURLToPath(new URL('index.ts', functionDir)),
  ],
  stderr: 'inherit',
}).output();
if (!info.success) Deno.exit(info.code);
const graph: { modules: { specifier: string }[] } = JSON.parse(new TextDecoder().decode(info.stdout));
const outside = graph.modules.map((m) => m.specifier).filter((s) =>
  s.startsWith('file:') && !s.startsWith(functionDir.href)
);
if (outside.length > 0) {
  console.error(
    `functions/api/index.ts imports files that \`supabase functions deploy api\` would upload:\n  ${
      outside.join('\n  ')
    }`,
  );
  Deno.exit(1);
}
