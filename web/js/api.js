// The raceserver HTTP API (server/http; docs/WEB.md). Relative URLs, so the
// page works under any prefix a proxy puts it behind.

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message || `HTTP ${status}`);
    this.status = status;
    this.code = code || 'http_error';
  }
}

async function get(path, kind) {
  let res;
  try {
    res = await fetch(path, {headers: {Accept: kind === 'json' ? 'application/json' : '*/*'}});
  } catch (e) {
    throw new ApiError(0, 'network', `cannot reach the server (${e.message})`);
  }
  if (!res.ok) {
    // Errors are {error: {status, code, message}}; anything else is a proxy's page.
    let body = null;
    try { body = await res.json(); } catch (e) { /* not JSON */ }
    const err = body && body.error;
    throw new ApiError(res.status, err && err.code, err && err.message);
  }
  if (kind === 'json') return res.json();
  if (kind === 'text') return res.text();
  return new Uint8Array(await res.arrayBuffer());
}

export const getJSON = (path) => get(path, 'json');
export const getText = (path) => get(path, 'text');
export const getBytes = (path) => get(path, 'bytes');

// Query string from an object, skipping empty values; an array value
// repeats its argument (car=A&car=B).
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (Array.isArray(v)) for (const x of v) q.append(k, String(x));
    else if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

export const enc = encodeURIComponent;
