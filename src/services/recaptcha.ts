/** Asks reCAPTCHA whether a login's response token is valid (any failure to ask counts as no). */
export async function verifyRecaptcha(host: string, secret: string, response: string): Promise<boolean> {
  try {
    const res = await fetch(`${host.replace(/\/$/, '')}/recaptcha/api/siteverify`, {
      method: 'POST',
      body: new URLSearchParams({ secret, response }),
      signal: AbortSignal.timeout(10_000),
    });
    const data = (await res.json()) as { success?: boolean };
    return data.success === true;
  } catch {
    return false;
  }
}
