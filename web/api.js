// The page's only door to the server: every /api/ request carries the token
// the page was opened with, and every failure becomes an ApiError whose
// message is the server's own {"error": ...} text (shown in the page).

// (no location outside a page: the logic tests import these modules in node)
const token = typeof location === 'undefined' ? '' : new URLSearchParams(location.search).get('token') || '';

export class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

export function hasToken() {
  return token !== '';
}

// url('/api/calls', {frame: 1}) -> "/api/calls?frame=1&token=..."; null and
// undefined parameters are left out.
export function url(path, params = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== null && v !== undefined && v !== '') q.set(k, String(v));
  }
  q.set('token', token);
  return `${path}?${q}`;
}

// Adds the token to a URL the server handed out (e.g. "/api/image?frame=3").
export function withToken(serverUrl) {
  const u = new URL(serverUrl, location.href);
  u.searchParams.set('token', token);
  return u.pathname + u.search;
}

async function request(target, signal, method = 'GET') {
  let resp;
  try {
    resp = await fetch(target, { method, signal, headers: { 'X-Gltrace-Token': token } });
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw new ApiError(`the viewer's server does not answer (${e.message}); is gltrace view still running?`, 0);
  }
  if (!resp.ok) {
    let message = `${resp.status} ${resp.statusText}`;
    try {
      const body = await resp.json();
      if (body && body.error) message = body.error;
    } catch {
      // not JSON: keep the status line
    }
    if (resp.status === 403) message += ' (open the URL gltrace view printed: it holds the access token)';
    throw new ApiError(message, resp.status);
  }
  return resp;
}

export async function getJson(path, params, signal) {
  const resp = await request(url(path, params), signal);
  return resp.json();
}

// An action (POST, no body): its JSON answer.
export async function postJson(path, params, signal) {
  const resp = await request(url(path, params), signal, 'POST');
  return resp.json();
}

export async function getText(path, params, signal) {
  const resp = await request(url(path, params), signal);
  return resp.text();
}

export async function getBytes(path, params, signal) {
  const resp = await request(url(path, params), signal);
  return new Uint8Array(await resp.arrayBuffer());
}

// An image URL's object URL (so that a 404's reason can be shown instead of a
// broken image); the caller revokes it.
export async function getImage(target, signal) {
  const resp = await request(target, signal);
  return URL.createObjectURL(await resp.blob());
}

// True for the AbortError of a request the page no longer wants.
export function aborted(e) {
  return e && e.name === 'AbortError';
}
