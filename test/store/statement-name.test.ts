import { describe, expect, it } from 'vitest';
import { statementName } from '../../src/store/engine/statement-name.js';

describe('statementName', () => {
  it('names a statement by its label and a digest of its text', () => {
    const text = '/* lease_tasks */\n    with picked as (select 1) select * from picked where x = $1';
    expect(statementName(text)).toMatch(/^taskqueue_lease_tasks_[0-9a-f]{12}$/);
    expect(statementName(text)).toBe(statementName(text));
    // The same label over another text (another schema, another clause) is another statement.
    expect(statementName(text.replace('x = $1', 'y = $1'))).not.toBe(statementName(text));
    expect(statementName(text.replace('x = $1', 'y = $1'))).toMatch(/^taskqueue_lease_tasks_/);
  });

  it('falls back to the first word of an unlabelled statement', () => {
    expect(statementName('  INSERT into "t"."queues" values ($1)')).toMatch(/^taskqueue_insert_[0-9a-f]{12}$/);
    expect(statementName('/* not a label: spaces */ select $1')).toMatch(/^taskqueue_statement_/);
  });

  it('stays within PostgreSQL identifier length (63 bytes)', () => {
    const label = 'a'.repeat(40);
    expect(statementName(`/* ${label} */ select $1`)).toHaveLength(63);
    // A longer label is no label.
    expect(statementName(`/* ${label}b */ select $1`)).toMatch(/^taskqueue_statement_/);
  });
});
