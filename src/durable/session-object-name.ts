/** The session object's name when none is given: the ingress path's first part (`/mitsu-session/<id>/prompt`). */
export const DEFAULT_SESSION_OBJECT = "mitsu-session";
