const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * Deterministic ids in the providers' shapes (`msg_01…`, `toolu_01…`, `req_011…`: a fixed head and 22 base62
 * characters), numbered per simulator, so a test run is reproducible and ids never collide within a run.
 */
export class IdSource {
  private counter = 0;

  next(prefix: string): string {
    this.counter++;
    let n = this.counter;
    let tail = "";
    while (n > 0) {
      tail = BASE62[n % 62] + tail;
      n = Math.floor(n / 62);
    }
    return `${prefix}${"SIM".concat(tail.padStart(19, "0"))}`;
  }
}
