import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLANNER_SETTINGS } from '../../src/store/engine/database.js';
import { pullQueue, serviceConfig } from '../helpers/configs.js';
import { ENGINES, openTestService, type TestService } from '../helpers/engines.js';

/**
 * The SQL API's functions carry the planner settings of the service's own
 * sessions (PLANNER_SETTINGS), so their statements are planned alike from
 * any client; and every function of the schema has the fixed search_path.
 */
describe.each(ENGINES)('SQL API function settings (%s)', (engine) => {
  let t: TestService;
  beforeAll(async () => {
    t = await openTestService(engine, serviceConfig([pullQueue('q')]));
  });
  afterAll(async () => t.close());

  const config = async (name: string) =>
    (
      await t.sql<{ proconfig: string[] | null }>(
        `select proconfig from pg_proc where pronamespace = $1::regnamespace and proname = $2`,
        [t.schema, name],
      )
    )[0]?.proconfig ?? [];

  it.each(['add_tasks', 'add_push_task', 'lease_tasks', 'modify_lease', 'delete_tasks'])(
    '%s runs with the service planner settings',
    async (name) => {
      const settings = await config(name);
      for (const [key, value] of Object.entries(PLANNER_SETTINGS)) expect(settings).toContain(`${key}=${value}`);
    },
  );

  it('every function of the schema that reads a table has the search_path with pg_temp last', async () => {
    const rows = await t.sql<{ proname: string; proconfig: string[] | null }>(
      `select proname, proconfig from pg_proc where pronamespace = $1::regnamespace order by proname`,
      [t.schema],
    );
    expect(rows.length).toBeGreaterThan(15);
    // The name-form helpers read no table and run only under their callers' fixed path.
    const pure = new Set(['generated_name_time', 'generate_task_name', 'generate_task_names']);
    // add_task reads no table either: it calls add_tasks by its schema-qualified name, with no SET so it can be inlined.
    const qualified = new Set(['add_task']);
    for (const row of rows) {
      if (pure.has(row.proname) || qualified.has(row.proname)) expect(row.proconfig, row.proname).toBeNull();
      else expect(row.proconfig ?? [], row.proname).toContain(`search_path=${t.schema}, pg_catalog, pg_temp`);
    }
  });
});
