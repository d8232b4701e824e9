// The bearer token the viewer sends with every call, if the server asks for
// one: typed into the sidebar, kept in sessionStorage (this tab, until it
// closes; never in the URL or localStorage).
const KEY = "linkage.token";

export function getToken(): string | undefined {
  return sessionStorage.getItem(KEY) || undefined;
}

export function setToken(token: string): void {
  if (token) sessionStorage.setItem(KEY, token);
  else sessionStorage.removeItem(KEY);
}
