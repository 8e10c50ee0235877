/** The closing line and the files that failed outside their tests, from a parsed vitest JSON report. */
export declare function summarize(report: unknown): { line: string; fileFailures: string[] };
/** The `count` test files that took longest, slowest first, as "  123 s  test/dir/file.test.ts". */
export declare function slowestFiles(report: unknown, count: number): string[];
