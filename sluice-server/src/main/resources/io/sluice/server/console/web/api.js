// Calls the server's HTTP API with the login token, if any. A 401 asks the app to show the login.
const TOKEN = 'sluice.console.token';
const USER = 'sluice.console.user';

export class ApiError extends Error {
  constructor(status, text) {
    super(text || ('HTTP ' + status));
    this.status = status;
  }
}

let onUnauthorized = () => {};
export function whenUnauthorized(handler) { onUnauthorized = handler; }
export function token() { return sessionStorage.getItem(TOKEN) || ''; }
export function user() { return sessionStorage.getItem(USER) || ''; }
export function logout() { sessionStorage.removeItem(TOKEN); sessionStorage.removeItem(USER); }

export async function login(username, password) {
  const r = await fetch('/nacos/v1/auth/users/login', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded;charset=UTF-8' },
    body: new URLSearchParams({ username, password }),
  });
  const text = await r.text();
  if (!r.ok) throw new ApiError(r.status, text);
  const body = JSON.parse(text);
  sessionStorage.setItem(TOKEN, body.accessToken || '');
  sessionStorage.setItem(USER, body.username || username);
}

/**
 * method, path, parameters (query for GET/DELETE, form body otherwise); options: headers, raw (the
 * body as text instead of parsed JSON).
 */
export async function call(method, path, params = {}, options = {}) {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null) form.append(k, String(v));
  }
  const headers = Object.assign({}, options.headers || {});
  if (token()) headers['accessToken'] = token();
  let url = path;
  const init = { method, headers };
  if (method === 'GET' || method === 'DELETE') {
    const q = form.toString();
    if (q) url += (url.includes('?') ? '&' : '?') + q;
  } else {
    headers['Content-Type'] = 'application/x-www-form-urlencoded;charset=UTF-8';
    init.body = form;
  }
  const r = await fetch(url, init);
  const text = await r.text();
  if (r.status === 401) {
    onUnauthorized();
    throw new ApiError(401, text || 'login required');
  }
  if (!r.ok) throw new ApiError(r.status, text);
  if (options.raw) return text;
  try { return JSON.parse(text); } catch (e) { return text; }
}

export const get = (path, params, options) => call('GET', path, params, options);
export const post = (path, params, options) => call('POST', path, params, options);
