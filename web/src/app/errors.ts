/** Spec §8: the server's message field, else the error's own message, else its string form. */
export function errorMessage(error: unknown): string {
  const e = error as { response?: { data?: { message?: unknown } }; message?: unknown } | null | undefined;
  const server = e?.response?.data?.message;
  if (typeof server === 'string' && server) return server;
  if (typeof e?.message === 'string' && e.message) return e.message;
  return String(error);
}
