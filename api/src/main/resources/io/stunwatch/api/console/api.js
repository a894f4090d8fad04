// The public API, with the bearer token kept for this browser tab only (sessionStorage).
const KEY = 'stunwatch.token';

export const token = {
  get: () => sessionStorage.getItem(KEY),
  set: (t) => sessionStorage.setItem(KEY, t),
  clear: () => sessionStorage.removeItem(KEY),
};

/** An API answer that was not 2xx: its status and the API's reason. */
export class ApiError extends Error {
  constructor(status, reason) {
    super(`HTTP ${status}: ${reason}`);
    this.status = status;
  }
}

/** GET path with the token; resolves to {body, headers}. A 401 clears the token. */
export async function get(path) {
  const res = await fetch(path, { headers: { Authorization: `Bearer ${token.get() || ''}` } });
  const text = await res.text();
  let body = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch (e) {
    throw new ApiError(res.status, `not JSON: ${text.slice(0, 80)}`);
  }
  if (!res.ok) {
    if (res.status === 401) {
      token.clear();
    }
    throw new ApiError(res.status, (body && body.reason) || res.statusText);
  }
  return { body, headers: res.headers };
}

/** A query string of the non-empty entries of params. */
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== '' && v !== false) {
      q.set(k, v);
    }
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}
