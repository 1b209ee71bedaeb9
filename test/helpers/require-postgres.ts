import { inject } from 'vitest';

// The db project's setup file (vitest.config.ts): a file that needs
// PostgreSQL fails here, with global-setup.ts's reason, before it imports
// anything, when the test PostgreSQL did not answer.
const problem = inject('pgProblem');
if (problem) throw new Error(problem);
