import { type ArmName, isArmName } from './arms.js';

/** `--name <n>` from argv, or the default; throws on a value that is not a finite number. */
export function numberFlag(argv: readonly string[], name: string, fallback: number): number {
  const i = argv.indexOf(name);
  if (i === -1) return fallback;
  const value = Number(argv[i + 1]);
  if (!Number.isFinite(value)) throw new Error(`${name} needs a number, got ${argv[i + 1]}`);
  return value;
}

/** `--name <s>` from argv, or undefined. */
export function stringFlag(argv: readonly string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i === -1 ? undefined : argv[i + 1];
}

/** `--arms a,b,…` from argv: the arm names given (others dropped), or undefined. */
export function armsFlag(argv: readonly string[]): ArmName[] | undefined {
  return stringFlag(argv, '--arms')?.split(',').filter(isArmName);
}
