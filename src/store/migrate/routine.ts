/**
 * A routine file of sql/routines/: `<name>.sql`, the current definition of
 * a function or view (CREATE OR REPLACE, its settings, comment and grants),
 * as the generated migrations.ts carries it. migrate() applies it after the
 * numbered migrations whenever its text changes (schema_routines).
 */
export interface Routine {
  readonly name: string;
  readonly text: string;
}
