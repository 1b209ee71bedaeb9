import { deliveredStatement } from '../push/push-delivered.js';
import { indent, statementText, tableOf, v } from './sql-api-text.js';

/** The columns both claim functions return; claim_push_tasks_after_delivery adds `delivered`. */
const CLAIM_COLUMNS = `name text, payload bytea, push jsonb, retry_count integer, execution_count integer,
               eta_usec int8, claim_usec int8, first_try_usec int8, last_status integer, last_error text,
               now_usec int8, wait_ms float8, delivered boolean`;

const ARGUMENTS = `p_queue integer, p_rate float8, p_bucket float8, p_max_concurrent integer,
                                                           p_limit integer, p_deadline_ms float8, p_margin_ms float8,
                                                           p_names text[], p_claims_usec int8[], p_tombstones boolean[]`;

const SIGNATURE = 'integer, float8, float8, integer, integer, float8, float8, text[], int8[], boolean[]';

/**
 * claim_push_tasks_after_delivery: the dispatch loop's
 * successes deleted, then claim_push_tasks (not a copy of it) in the same
 * transaction, so the claim counts their slots free: one round trip per
 * cycle. The delete is the service's push_delivered (push-delivered.ts)
 * with the function's arguments in its bound values' places, so a task
 * delivered while the loop runs and one delivered after it stopped leave
 * the same rows. The deletes come before claim_push_tasks takes the bucket
 * row's lock and wait for no lock a claim holding it could wait on (claims
 * skip locked rows), so claims of several processes cannot deadlock on them.
 *
 * Also the signature without the claiming process, for a process older
 * than the dispatchers' liveness (push_dispatchers) during a rolling deploy
 * (its claims marked by no process, as claim_push_tasks' signature without
 * it): it calls the one above.
 * The service's own functions: no role but the owner calls them.
 */
export function claimAfterDeliveryFunction(): string {
  const statement = statementText(
    deliveredStatement(tableOf, {
      queueId: v('p_queue'),
      names: v('p_names'),
      claimsUsec: v('p_claims_usec'),
      tombstones: v('p_tombstones'),
    }),
  );
  return `CREATE OR REPLACE FUNCTION claim_push_tasks_after_delivery(${ARGUMENTS},
                                                           p_dispatcher bigint)
RETURNS TABLE (${CLAIM_COLUMNS})
LANGUAGE plpgsql
AS $$
-- The output columns share names with table columns (name, retry_count): a bare name means the column.
#variable_conflict use_column
DECLARE
  r record;
BEGIN
  IF cardinality(p_names) > 0 THEN
    -- The service's delete of delivered tasks (src/store/push/push-delivered.ts),
    -- generated from its builder: one row per task deleted (delivered true,
    -- only name set).
    FOR r IN
${indent(statement, 6)}
    LOOP
      name := r.name;
      delivered := true;
      RETURN NEXT;
    END LOOP;
  END IF;
  -- A later statement of this transaction: its snapshot sees the rows above gone.
  RETURN QUERY
  SELECT c.name, c.payload, c.push, c.retry_count, c.execution_count, c.eta_usec, c.claim_usec, c.first_try_usec,
         c.last_status, c.last_error, c.now_usec, c.wait_ms, false
    FROM claim_push_tasks(p_queue, p_rate, p_bucket, p_max_concurrent, p_limit, p_deadline_ms, p_margin_ms, p_dispatcher) c;
END
$$;

CREATE OR REPLACE FUNCTION claim_push_tasks_after_delivery(${ARGUMENTS})
RETURNS TABLE (${CLAIM_COLUMNS})
LANGUAGE sql
AS $$
  SELECT * FROM claim_push_tasks_after_delivery(p_queue, p_rate, p_bucket, p_max_concurrent, p_limit, p_deadline_ms,
                                                p_margin_ms, p_names, p_claims_usec, p_tombstones, NULL::int8)
$$;

-- CREATE OR REPLACE replaces a function's SET clauses: the schema's fixed
-- search_path again (docs/sql-api.md).
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION claim_push_tasks_after_delivery(${SIGNATURE}, bigint) SET search_path = %I, pg_catalog, pg_temp', current_schema());
  EXECUTE format('ALTER FUNCTION claim_push_tasks_after_delivery(${SIGNATURE}) SET search_path = %I, pg_catalog, pg_temp', current_schema());
END
$$;
REVOKE ALL ON FUNCTION claim_push_tasks_after_delivery(${SIGNATURE}, bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION claim_push_tasks_after_delivery(${SIGNATURE}) FROM PUBLIC;
`;
}
