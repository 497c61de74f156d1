/** Every 6 characters in a row of `secret`: what a test of an output looks for, as no piece of a credential may be printed. */
export const fragmentsOf = (secret: string): string[] => Array.from({ length: secret.length - 5 }, (_, i) => secret.slice(i, i + 6));
