/** Bad arguments: printed as one line with a pointer to the help, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Writes to stdout, waiting when the pipe is full, so a long export never buffers the whole log. */
export function write(text: string): Promise<void> {
  return process.stdout.write(text)
    ? Promise.resolve()
    : new Promise((resolve) => process.stdout.once('drain', resolve));
}

export const writeLine = (line: string): Promise<void> => write(`${line}\n`);

export const iso = (ms: number): string => new Date(ms).toISOString();

/** A value as a difference shows it; `missing` for an absent field or document. */
export const shown = (value: unknown): string => JSON.stringify(value) ?? 'missing';
