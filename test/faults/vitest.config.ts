import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** In the order of their names: the faults the stack rides out most easily first. */
class ByName extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return Promise.resolve([...files].sort((a, b) => a.moduleId.localeCompare(b.moduleId)));
  }
}

// `npm run faults` (supabase/cli/main.ts): the fault suite, on a stack of its own. Its files break the stack
// on purpose, so they run one after another, each bounded in time.
export default defineConfig({
  test: {
    include: ['test/faults/**/*.fault.ts'],
    fileParallelism: false,
    globalSetup: ['test/request-limits.setup.ts'],
    sequence: { sequencer: ByName },
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
