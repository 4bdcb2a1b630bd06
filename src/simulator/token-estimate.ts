/** The simulator's token estimate: characters / charsPerToken, rounded up (a started token counts). */
export function estimateTokens(chars: number, charsPerToken: number): number {
  if (chars <= 0) return 0;
  return Math.ceil(chars / charsPerToken);
}
