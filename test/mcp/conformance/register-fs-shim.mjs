import { register } from "node:module";

register("./fs-shim-hooks.mjs", import.meta.url);
