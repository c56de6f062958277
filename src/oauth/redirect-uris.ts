// Redirect URIs clients may register: https anywhere, http only on loopback, or a native app's private scheme.

const FORBIDDEN_SCHEMES = new Set([
  'javascript:',
  'data:',
  'file:',
  'vbscript:',
  'about:',
  'blob:',
  'ftp:',
  'ws:',
  'wss:',
]);

function isLoopbackHostname(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/** Why `uri` cannot be a redirect URI, or null. */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length > 2000) return 'A redirect URI is at most 2000 characters.';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${JSON.stringify(uri.slice(0, 100))} is not an absolute URL.`;
  }
  if (url.hash || uri.includes('#')) return 'A redirect URI must not have a fragment.';
  if (url.username || url.password) return 'A redirect URI must not carry credentials.';
  if (url.protocol === 'https:') return url.hostname ? null : 'An https redirect URI needs a host.';
  if (url.protocol === 'http:') {
    return isLoopbackHostname(url.hostname)
      ? null
      : 'An http redirect URI is allowed only on a loopback host (127.0.0.1, [::1], localhost); use https.';
  }
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return `The ${url.protocol} scheme cannot be a redirect URI.`;
  return null;
}

/** The host a person sees on the consent page: the URL's host, or the scheme of a native app. */
export function redirectHostOf(uri: string): string {
  const url = new URL(uri);
  return url.host || url.protocol.replace(/:$/, '');
}

/** A Content-Security-Policy source that lets a form on this site end in a redirect to `uri`. */
export function formActionSourceOf(uri: string): string {
  const url = new URL(uri);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
}
