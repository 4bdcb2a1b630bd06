/** The notice for a session file resumed from outside mitsu's own folders (see `isOwnSessionFile`). */
export function foreignSessionNotice(path: string, dir: string): string {
  return `resuming ${path}, a session file that is not one of mitsu's own (not under ~/.mitsu): its conversation is continued in a copy in ${dir}, and the checkpoints beside it are not used, so /rewind restores no file from before this run`;
}
