// What the app's middleware put on a request's context: its id (every request) and the token's principal (bearerAuth).
import type { Principal } from '../auth/principal.ts';

export type AppEnv = { Variables: { principal: Principal; requestId: string } };
