/** The checkout's root directory. */
export declare const repoRoot: string;
/** Written by `pnpm build`; sources newer than it make the build stale. */
export declare const buildStamp: string;
/** Whether services/cli/dist is built from the sources as they are now. */
export declare function buildIsCurrent(): boolean;
/** Node arguments that start the CLI: the build when current, the sources through tsx otherwise. */
export declare function cliNodeArgs(): string[];
