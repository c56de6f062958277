// Pieces shared by the forms shown before a session exists (sign up, sign in, confirm, reset) and their answers.
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { hashPassword, MIN_PASSWORD_LENGTH } from '../../auth/passwords.ts';
import { Input } from '../forms.tsx';
import { CardPage } from '../layout.tsx';
import { sendPage } from '../render.tsx';

// Verifying (or hashing) with a real hash when there is no account keeps both answers equally slow. The hash is
// kept, not its promise: on a Worker a request must not await a promise made by another request, which may end first.
let decoyHash: string | undefined;
export async function decoy(): Promise<string> {
  decoyHash ??= await hashPassword('decoy password that never matches');
  return decoyHash;
}

export function sendMessage(
  c: Context,
  status: ContentfulStatusCode,
  props: Parameters<typeof CardPage>[0],
): Response | Promise<Response> {
  return sendPage(c, <CardPage {...props} />, status);
}

/** A new password and its repetition (the password page, a reset link's page). */
export function NewPasswordFields(props: { hint: string }) {
  return (
    <>
      <Input
        id="new_password"
        label="New password"
        type="password"
        required
        autocomplete="new-password"
        minlength={MIN_PASSWORD_LENGTH}
        hint={`At least ${MIN_PASSWORD_LENGTH} characters. ${props.hint}`}
      />
      <Input
        id="new_password_confirm"
        label="Repeat the new password"
        type="password"
        required
        autocomplete="new-password"
      />
    </>
  );
}
