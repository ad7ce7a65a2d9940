/** When an expiring application credential is replaced: a re-apply inside its renewal window. */

/** Longest renewal window: the last 30 days before the expiry. */
export const CREDENTIAL_RENEWAL_WINDOW_DAYS = 30;

/**
 * Days after creation from which a plan or apply replaces the credential: 30 days before it
 * expires, or halfway for credentials that live 60 days or less. `undefined` for 0 (never expires).
 */
export function credentialRotationDays(expiresInDays: number): number | undefined {
  if (expiresInDays <= 0) return undefined;
  return expiresInDays - Math.min(CREDENTIAL_RENEWAL_WINDOW_DAYS, Math.floor(expiresInDays / 2));
}
