// The tree's layers (supabase/tools/layers.ts, which `npm run check` runs): the commands above the benchmarks,
// the tests, the tools, the stack and the product, each importing only from below.
import { describe, expect, it } from 'vitest';
import { layeredFiles, upwardImports } from '../../supabase/tools/layers.ts';

describe('the layers of the tree', () => {
  it('import one way, from the top down', () => {
    const files = layeredFiles(process.cwd()); // vitest runs from the repository's root
    expect(files.map((file) => file.path)).toEqual(
      expect.arrayContaining(['supabase/cli/main.ts', 'supabase/stack/stack.ts', 'functions/api/app.ts']),
    );
    expect(upwardImports(files)).toEqual([]);
  });

  it('name an import that runs up, or across to a folder beside its own', () => {
    expect(upwardImports([
      { path: 'supabase/stack/main.ts', text: "import { scaleBench } from '../bench/scale.ts';" },
      { path: 'supabase/tools/x.ts', text: "const { a } = await import('../cli/main.ts');" },
      { path: 'functions/api/x.ts', text: "export { rpcRoutes } from '../../client/database.ts';" },
      { path: 'test/api/x.test.ts', text: "import { up } from '../../supabase/stack/stack.ts';" },
    ])).toEqual([
      'supabase/stack/main.ts → supabase/bench/scale.ts: the benchmarks, a layer above',
      'supabase/tools/x.ts → supabase/cli/main.ts: the commands, a layer above',
      'functions/api/x.ts → client/database.ts: a folder beside its own',
    ]);
  });
});
