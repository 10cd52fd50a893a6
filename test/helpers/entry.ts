/**
 * The node arguments that run one of svc's own programs as a test's subprocess. Under
 * scripts/run-tests.mjs, which compiles src/ first (`tsc -b`, incremental) and sets
 * SVC_TEST_ENTRY=dist, the compiled `dist/src/….js`; else (a test file run by hand, where dist/
 * may be stale) the source through tsx. Why: the suite starts svc as a process again and again, and
 * one imports its server in 1.5 s compiled against 2.9 s through tsx (and its decode workers load
 * no TypeScript either): the whole suite's test time went from 1,688 to 1,516 s.
 */
export function entryArgs(source: 'src/main.ts' | 'src/cli/main.ts'): string[] {
  return process.env.SVC_TEST_ENTRY === 'dist'
    ? [`dist/${source.replace(/\.ts$/, '.js')}`]
    : ['--import', 'tsx', source];
}
