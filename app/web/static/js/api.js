// REST calls with the bearer token. Tokens live in localStorage so a reload stays signed in;
// an expired access token is refreshed once (the refresh token rotates) and the call retried.

export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

const listeners = new Set();

export const session = {
  get access() { return localStorage.getItem("access_token"); },
  get refresh() { return localStorage.getItem("refresh_token"); },
  save(pair) {
    localStorage.setItem("access_token", pair.access_token);
    localStorage.setItem("refresh_token", pair.refresh_token);
  },
  clear() {
    localStorage.removeItem("access_token");
    localStorage.removeItem("refresh_token");
    listeners.forEach((fn) => fn());
  },
  onLogout(fn) { listeners.add(fn); },
};

async function raw(method, path, body, token) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null; // not JSON (a proxy's error page): the status says enough
  }
  if (!res.ok) {
    const err = (data && data.error) || {};
    throw new ApiError(res.status, err.code || "internal_error", err.message || res.statusText, err.details);
  }
  return data;
}

let refreshing = null;

export async function refreshTokens() {
  if (!session.refresh) throw new ApiError(401, "unauthorized", "not signed in");
  refreshing ??= raw("POST", "/auth/refresh", { refresh_token: session.refresh })
    .then((pair) => session.save(pair))
    .finally(() => { refreshing = null; });
  return refreshing;
}

export async function api(method, path, body) {
  try {
    return await raw(method, path, body, session.access);
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== "unauthorized" || !session.refresh) throw err;
    try {
      await refreshTokens();
    } catch (again) {
      session.clear();
      throw again;
    }
    return raw(method, path, body, session.access);
  }
}

export async function login(username, password) {
  session.save(await raw("POST", "/auth/login", { username, password }));
}

export async function register(username, password) {
  await raw("POST", "/auth/register", { username, password });
  await login(username, password);
}
