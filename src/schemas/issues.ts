/** How a failed zod parse reads to a client. */
import type { z } from 'zod';

/**
 * The status and `field: message` text of a failed parse: the first issue, named by its path
 * (or by the request part when the whole part is wrong). A schema may ask for another status
 * than 400 (404 for an id that cannot name anything) with `params: { status }` on its issue.
 */
export function describeIssue(part: string, error: z.ZodError): { status: number; message: string } {
  const issue = error.issues[0];
  const field = issue?.path.length ? issue.path.join('.') : part;
  const params = issue && 'params' in issue ? (issue.params as { status?: number } | undefined) : undefined;
  return { status: params?.status ?? 400, message: `${field}: ${issue?.message ?? 'invalid'}` };
}
