// The plugin ships no types; mitsu uses only `gfm` (tables, strikethrough, task lists).
declare module "turndown-plugin-gfm" {
  import type TurndownService from "turndown";
  export function gfm(service: TurndownService): void;
}
