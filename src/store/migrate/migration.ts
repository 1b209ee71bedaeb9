/** A migration file of sql/: `NNNN_name.sql`, as the generated migrations.ts carries it. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly text: string;
}
