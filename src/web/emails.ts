// The words of the account emails: confirm a sign-up or an address, reset a password, an invitation.
import type { AccountEmail } from '../notify/account-mail.ts';

const IGNORE = 'If you did not ask for this, ignore this email: nothing happens without the link.';

/** A path alone (no PUBLIC_URL, a Host that is not trusted) reads as a path on the service. */
function linkLine(url: string): string {
  return url.startsWith('/') ? `${url} (on this Compliance MCP service)` : url;
}

export function signUpEmail(to: string, url: string, hours: number): AccountEmail {
  return {
    to,
    purpose: 'signup',
    subject: 'Confirm your address to finish signing up',
    text: [
      `Someone (we hope you) signed up to Compliance MCP with ${to}.`,
      '',
      `Open this link within ${hours} hours to confirm the address; the account is made then:`,
      linkLine(url),
      '',
      IGNORE,
    ].join('\n'),
  };
}

export function alreadyRegisteredEmail(to: string, loginUrl: string, resetUrl: string): AccountEmail {
  return {
    to,
    purpose: 'signup-existing',
    subject: 'You already have an account',
    text: [
      `Someone (we hope you) tried to sign up to Compliance MCP with ${to}, which already has an account.`,
      '',
      `Sign in: ${linkLine(loginUrl)}`,
      `Forgot the password? ${linkLine(resetUrl)}`,
      '',
      'If it was not you, nothing changed: no second account was made.',
    ].join('\n'),
  };
}

export function verifyEmail(to: string, url: string, hours: number): AccountEmail {
  return {
    to,
    purpose: 'verify',
    subject: 'Confirm your email address',
    text: [
      `Open this link within ${hours} hours to confirm that ${to} is your address on Compliance MCP:`,
      linkLine(url),
      '',
      IGNORE,
    ].join('\n'),
  };
}

export function resetEmail(to: string, url: string, hours: number): AccountEmail {
  return {
    to,
    purpose: 'reset',
    subject: 'Choose a new password',
    text: [
      `Someone (we hope you) asked to reset the password of ${to} on Compliance MCP.`,
      '',
      `Open this link within ${hours === 1 ? 'an hour' : `${hours} hours`} to choose a new one (it works once):`,
      linkLine(url),
      '',
      IGNORE,
    ].join('\n'),
  };
}

export function invitationEmail(
  to: string,
  invitation: { organizationName: string; invitedBy: string; role: string; expiresAt: string },
  url: string,
): AccountEmail {
  return {
    to,
    purpose: 'invitation',
    subject: `${invitation.invitedBy} invited you to ${invitation.organizationName}`,
    text: [
      `${invitation.invitedBy} invited ${to} to join ${invitation.organizationName} on Compliance MCP as ${invitation.role}.`,
      '',
      `Accept or decline (until ${invitation.expiresAt.slice(0, 10)}): sign in, or create an account, with this address:`,
      linkLine(url),
      '',
      'If you do not know this organization, ignore this email: nobody joins without accepting.',
    ].join('\n'),
  };
}
