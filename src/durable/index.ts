/**
 * mitsu/durable: agent sessions as Restate virtual objects — many sessions across many workers, surviving
 * crashes, with permission questions that can wait for hours. Needs `@restatedev/restate-sdk` (an optional
 * peer dependency of mitsu).
 */
export { askPerson, PendingAsks } from "./ask-person.js";
export {
  type CodingAgentSetup,
  type CodingAgentSetupOptions,
  codingAgentSetup,
} from "./coding-agent-setup.js";
export { createDurableAgent, type DurableAgentOptions, HTTP2_TURNS_PER_INVOCATION } from "./durable-agent.js";
export type {
  DurableAgentSetup,
  DurableDecision,
  DurablePermissions,
  DurableSession,
} from "./durable-agent-setup.js";
export { DurableError } from "./durable-error.js";
export type { AskAnswer, PendingAsk } from "./pending-ask.js";
export type { AnswerRequest, PromptRequest, PromptResponse } from "./prompt-request.js";
export { type Registration, registerWorker, registrationCommand } from "./register-worker.js";
export { type RestateJournalOptions, restateJournal } from "./restate-journal.js";
export { type ServeWorkerOptions, serveWorker, type WorkerEndpoint } from "./serve-worker.js";
export {
  createSessionClient,
  type FollowOptions,
  type PromptCallOptions,
  type SessionClient,
  type SessionClientOptions,
  type SessionEvent,
} from "./session-client.js";
export type { EventsRequest, SessionEvents } from "./session-events.js";
export { DEFAULT_SESSION_OBJECT } from "./session-object-name.js";
export { sessionWorkspaces } from "./session-workspaces.js";
export { type StartRestateClusterOptions, startRestateCluster } from "./start-restate-cluster.js";
export {
  freePort,
  type RestateServer,
  restateServerBinary,
  type StartRestateServerOptions,
  startRestateServer,
} from "./start-restate-server.js";
export { fileStepMarks, type StepMarks } from "./step-marks.js";
