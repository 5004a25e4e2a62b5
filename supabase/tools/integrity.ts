// After a test or fault run: moderation.integrity_report() must be empty (issue 40: every suite leaves the
// database consistent, whatever it did as Studio or as a fault). Its rows are printed, and the run fails.
import postgres from 'postgres';
import { info, warn } from '../stack/log.ts';

/** Whether the report is empty on `databaseUrl`; when not, its rows are printed. */
export async function integrityHolds(databaseUrl: string): Promise<boolean> {
  const sql = postgres(databaseUrl, { max: 1, connect_timeout: 10, onnotice: () => {} });
  try {
    const rows = await sql`select problem, element_type, element_id, detail, repair from moderation.integrity_report()
      order by problem, element_type, element_id`.catch((error) => {
      warn(
        `FAILED: moderation.integrity_report() could not run after the run: ${
          error instanceof Error ? error.message : error
        }`,
      );
      return undefined;
    });
    if (!rows) return false;
    if (rows.length === 0) {
      info('moderation.integrity_report() is empty after the run');
      return true;
    }
    warn(`FAILED: moderation.integrity_report() lists ${rows.length} broken invariant(s) after the run:`);
    for (const row of rows) {
      console.log(`  ${row.problem}: ${row.element_type} ${row.element_id}: ${row.detail}   (repair: ${row.repair})`);
    }
    return false;
  } finally {
    await sql.end();
  }
}
