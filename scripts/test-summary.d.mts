/** The closing line and the files that failed outside their tests, from a parsed vitest JSON report. */
export declare function summarize(report: unknown): { line: string; fileFailures: string[] };
