/** The session object's name when none is given: the ingress path's first part (`/mitsu-session/<id>/prompt`). */
export const DEFAULT_SESSION_OBJECT = "mitsu-session";

/** The name of the object that drives a session object's runs, turn by turn (`turn-driver.ts`). */
export function driverName(sessionObject: string): string {
  return `${sessionObject}-run`;
}
