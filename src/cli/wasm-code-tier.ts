import { setFlagsFromString } from 'node:v8';

/**
 * Keeps WebAssembly on V8's baseline compiler (Liftoff), without tier-up to
 * the optimising one (TurboFan). PGlite is 9 MB of WebAssembly; by default
 * V8 recompiles every hot function with TurboFan in background threads, and
 * that code plus the compiler's working memory stayed resident: about 70 MB
 * of a server's idle RSS on the embedded engine (docs/performance.md). The
 * queries of a task queue are short, so the baseline code costs little
 * time. It must run before PGlite compiles its module, and only where the
 * process is ours to tune (`taskqueue serve`), never in a host application.
 */
export function useBaselineWasmCompiler(): void {
  setFlagsFromString('--liftoff-only');
}
