/**
 * Concurrent HTTP load on a running server with autocannon: a fixed number of connections send
 * searches back to back for a fixed time, each request the next of a fixed list of varied queries.
 * Every response's latency is kept (autocannon reports no p95), then summarized.
 */
import autocannon from "autocannon";
import { summarize } from "./stats";

export interface LoadTestResult {
  connections: number;
  duration_s: number;
  requests: number;
  /** Answered requests per second (2xx). */
  requests_per_s: number;
  latency_ms: { mean: number; p50: number; p95: number; p99: number; max: number };
  non_2xx: number;
  errors: number;
  timeouts: number;
  /**
   * CPU milliseconds per answered request of the measured seconds, for each process the run was
   * given a meter of (the orgsim server with its workers; Elasticsearch's node): what a request
   * costs each, apart from the load generator beside them on the same cores.
   */
  cpu_ms_per_request?: Record<string, number>;
}

/** Named readers of CPU seconds used so far (see system.ts, processTreeCpuSeconds); null when the process is gone. */
export type CpuMeters = Record<string, () => number | null>;

/** How long a run lasts: `seconds`, or `requests` answers (autocannon's `amount`). */
type RunLength = { seconds: number } | { requests: number };

function runOnce(baseUrl: string, paths: string[], connections: number, length: RunLength, record: number[] | null) {
  let next = 0;
  return new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: baseUrl,
        connections,
        pipelining: 1,
        ...("seconds" in length ? { duration: length.seconds } : { amount: length.requests }),
        timeout: 120,
        requests: [
          {
            method: "GET",
            setupRequest: (request) => {
              request.path = paths[next++ % paths.length] as string;
              return request;
            },
          },
        ],
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
    if (record) instance.on("response", (_client, statusCode, _bytes, responseTime) => statusCode < 300 && record.push(responseTime));
  });
}

/**
 * Warms up (not recorded) with one pass over every path (at least one request a connection), then for `warmup` seconds, and measures
 * for `seconds`. The pass gives a slow backend's caches each query once, as a fast one gets them
 * many times within the seconds (and as es-replay.ts warms up Elasticsearch's own floor).
 */
export async function loadTest(
  baseUrl: string,
  paths: string[],
  connections: number,
  seconds: number,
  warmup: number,
  meters: CpuMeters = {},
): Promise<LoadTestResult> {
  if (warmup > 0) {
    await runOnce(baseUrl, paths, connections, { requests: Math.max(paths.length, connections) }, null);
    await runOnce(baseUrl, paths, connections, { seconds: warmup }, null);
  }
  const latencies: number[] = [];
  const cpuBefore = readMeters(meters);
  const result = await runOnce(baseUrl, paths, connections, { seconds }, latencies);
  const cpu = cpuPerRequest(cpuBefore, readMeters(meters), latencies.length);
  const s = summarize(latencies);
  const round = (x: number) => Math.round(x * 100) / 100;
  return {
    connections,
    duration_s: result.duration,
    requests: latencies.length,
    requests_per_s: round(latencies.length / result.duration),
    latency_ms: { mean: round(s.mean), p50: round(s.p50), p95: round(s.p95), p99: round(s.p99), max: round(s.max) },
    non_2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    ...(Object.keys(cpu).length ? { cpu_ms_per_request: cpu } : {}),
  };
}

function readMeters(meters: CpuMeters): Map<string, number | null> {
  return new Map(Object.entries(meters).map(([name, read]) => [name, read()]));
}

/**
 * Each meter's CPU between two readings over the requests answered. A meter whose process went away
 * is left out, and so is one that fell (a worker that exited took its CPU time with it).
 */
function cpuPerRequest(before: Map<string, number | null>, after: Map<string, number | null>, requests: number): Record<string, number> {
  const perRequest: Record<string, number> = {};
  for (const [name, start] of before) {
    const end = after.get(name);
    if (start === null || end === null || end === undefined || end < start || requests === 0) continue;
    perRequest[name] = Math.round(((end - start) * 1000 * 1000) / requests) / 1000;
  }
  return perRequest;
}
