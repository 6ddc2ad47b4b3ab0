/** Types of turbo-build-log.mjs, for the tests (the script runs before any build). */
export declare class TurboBuildLog {
  constructor(write: (line: string) => void, packages?: readonly string[]);
  take(line: string): void;
  finish(exitCode: number): string[];
}
