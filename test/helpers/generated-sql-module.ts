import { writeMigrationsModule } from '../../scripts/generate-migrations.js';

/**
 * Global setup of both test projects: src/store/migrate/migrations.ts is
 * generated from sql/ and not committed, so every run starts from sql/ as it
 * is (a routine edited a moment ago is what the tests apply).
 */
export default async function setup(): Promise<void> {
  await writeMigrationsModule();
}
