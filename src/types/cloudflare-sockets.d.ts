// `cloudflare:sockets` for the Node-side type check (tsconfig.json has no workers-types globals): the Worker's TCP
// sockets, typed by @cloudflare/workers-types (src/notify/mailer-worker.ts).
declare module 'cloudflare:sockets' {
  import type { Socket, SocketAddress, SocketOptions } from '@cloudflare/workers-types';
  export function connect(address: string | SocketAddress, options?: SocketOptions): Socket;
}
