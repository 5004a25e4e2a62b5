// Spectral's `spectral:oas` rules and Redocly's recommended ones on the document the test stack serves: no error,
// and no warning but those docs/API.md ("OpenAPI lint") says why it keeps.
import { describe, expect, it } from 'vitest';
import { lintOpenApi } from '../../supabase/tools/openapi-lint.ts';
import { stack } from '../helpers/stack.ts';

/** Each warning kept on purpose, by linter and rule, with how many; docs/API.md gives the reason of each. */
const justified = {
  'spectral info-contact': 1,
  'redocly info-license': 1,
  'redocly no-ambiguous-paths': 11,
  'redocly operation-2xx-response': 1,
};

describe('the served OpenAPI document, linted', () => {
  it('has no error and only the justified warnings (Spectral spectral:oas, Redocly recommended)', async () => {
    const response = await fetch(`${stack.functionsUrl}/openapi.json`);
    expect(response.status).toBe(200);
    const findings = await lintOpenApi(await response.json());
    expect(findings.filter((finding) => finding.severity === 'error')).toEqual([]);
    const counts: Record<string, number> = {};
    for (const finding of findings) {
      counts[`${finding.linter} ${finding.rule}`] = (counts[`${finding.linter} ${finding.rule}`] ?? 0) + 1;
    }
    expect(counts, JSON.stringify(findings, null, 2)).toEqual(justified);
    // The ones Redocly finds ambiguous are /{username}/… against /post/{postId}, and /post/comment/{commentId} against /post/{postId}/like.
    expect(
      findings.filter((finding) => finding.rule === 'no-ambiguous-paths').every((finding) =>
        /`\/api\/post\/\{postId\}` and `\/api\/\{username\}\/|`\/api\/post\/\{postId\}\/like` and `\/api\/post\/comment\/\{commentId\}`/
          .test(finding.message)
      ),
    ).toBe(true);
  }, 60_000);
});
