import {
  aiFinal,
  aiLive,
  anthropicSdkFinal,
  anthropicSdkLive,
  type ClientRun,
  floor,
  mitsuFinal,
  mitsuLive,
} from "./clients.js";

export interface BenchClient {
  key: string;
  name: string;
  mode: "live" | "final" | "floor";
  run: (run: ClientRun) => Promise<number>;
}

export const CLIENTS: BenchClient[] = [
  { key: "floor", name: "floor", mode: "floor", run: floor },
  { key: "live:mitsu", name: "mitsu", mode: "live", run: mitsuLive },
  { key: "live:anthropic-sdk", name: "@anthropic-ai/sdk", mode: "live", run: anthropicSdkLive },
  { key: "live:ai", name: "ai + @ai-sdk/anthropic", mode: "live", run: aiLive },
  { key: "final:mitsu", name: "mitsu", mode: "final", run: mitsuFinal },
  { key: "final:anthropic-sdk", name: "@anthropic-ai/sdk", mode: "final", run: anthropicSdkFinal },
  { key: "final:ai", name: "ai + @ai-sdk/anthropic", mode: "final", run: aiFinal },
];
