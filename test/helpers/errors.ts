// The problem lines of bad input, for tests of located errors.
import { expect } from 'vitest';
import { isInputError, type InputError } from '../../core/errors.js';

/** Formatted problem lines of `load`, which must throw an InputError. */
export function thrown(load: () => unknown): string[] {
  try {
    load();
  } catch (e) {
    expect(isInputError(e)).toBe(true);
    return (e as InputError).message.split('\n');
  }
  throw new Error('expected an InputError');
}

/** The message of the InputError `run` rejects with (any other error is rethrown). */
export async function inputErrorOf(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (e) {
    if (isInputError(e)) return e.message;
    throw e;
  }
  throw new Error('expected an InputError');
}
