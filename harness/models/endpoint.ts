// Where an OpenAI-compatible model is served, as ids, cache keys and reports
// name it. Apart from the client (models/openai.ts), so a run that never calls
// a server does not load the `openai` package to describe itself.

/** Where the client's default base URL points; the breaker key when none is configured. */
export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';

/** The base URL without credentials, query or fragment (safe for ids, cache keys and reports). */
export function publicBaseURL(baseURL: string | undefined): string | undefined {
  if (!baseURL) return undefined;
  try {
    const url = new URL(baseURL);
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return undefined;
  }
}
