/**
 * `mitsu/testing`: test doubles for embedders, so an agent built on mitsu can be tested without the network —
 * a scripted provider that streams what a script says and records every request, helpers that build stream
 * events for common turns, and in-memory skills. For end-to-end tests over real HTTP, `mitsu/simulator` serves
 * each provider's real wire format from a script.
 */
export * from "./test-provider.js";
export * from "./test-skill.js";
