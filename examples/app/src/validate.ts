import type { z } from 'zod';
import { AppError } from './errors.js';

/** Parses `value` with `schema`, or throws AppError 400 naming each failing field (`where` when it has no path). */
export function parse<T extends z.ZodType>(schema: T, value: unknown, where: string): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw AppError.invalidInput(result.error, where);
  return result.data;
}
