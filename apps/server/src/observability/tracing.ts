/**
 * OpenTelemetry traces, exported over OTLP (HTTP, JSON) only when OTEL_EXPORTER_OTLP_ENDPOINT (or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set: a server span per HTTP request (joining the caller's
 * trace through `traceparent`), and inside it spans for the search, the embedding model and each
 * backend call. Without an endpoint nothing is recorded.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { context, propagation, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, NodeTracerProvider } from "@opentelemetry/sdk-trace-node";

const tracer = () => trace.getTracer("orgsim");
let provider: NodeTracerProvider | null = null;

/** Starts exporting when an OTLP endpoint is configured; true when it did. */
export function startTracing(env: NodeJS.ProcessEnv = process.env): boolean {
  if (provider || !(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)) return provider !== null;
  provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": env.OTEL_SERVICE_NAME ?? "orgsim" }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  // AsyncLocalStorage context and W3C trace context: spans started inside a request are its children.
  provider.register();
  return true;
}

/** Sends the spans still buffered (at shutdown). */
export async function stopTracing(): Promise<void> {
  await provider?.shutdown();
  provider = null;
}

/** Runs `run` inside a span named `name`; the span records a failure. */
export function inSpan<T>(name: string, run: () => T): T {
  if (!provider) return run();
  return tracer().startActiveSpan(name, (span) => ended(span, run));
}

/** Runs the request's handling inside a server span continuing the caller's trace, ended when the response closes. */
export function inRequestSpan(req: IncomingMessage, res: ServerResponse, route: string, run: () => Promise<void>): Promise<void> {
  if (!provider) return run();
  const parent = propagation.extract(context.active(), req.headers);
  const attributes = { "http.request.method": req.method ?? "GET", "http.route": route };
  return tracer().startActiveSpan(
    `${route.startsWith(req.method ?? "") ? route : `${req.method} ${route}`}`,
    { kind: SpanKind.SERVER, attributes },
    parent,
    (span) => {
      res.once("close", () => {
        span.setAttribute("http.response.status_code", res.statusCode);
        if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      });
      return run();
    },
  );
}

function ended<T>(span: Span, run: () => T): T {
  const fail = (error: unknown) => {
    span.recordException(error as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message });
    span.end();
  };
  try {
    const result = run();
    if (!(result instanceof Promise)) {
      span.end();
      return result;
    }
    return result.then(
      (value) => {
        span.end();
        return value;
      },
      (error) => {
        fail(error);
        throw error;
      },
    ) as T;
  } catch (error) {
    fail(error);
    throw error;
  }
}
