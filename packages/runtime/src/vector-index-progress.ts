/**
 * Shows a build of the embedded backend's vector graphs: a cli-progress bar on a terminal,
 * otherwise a line every few seconds (server logs and CI stay readable).
 */
import cliProgress from "cli-progress";

export interface VectorIndexProgress {
  done: number;
  total: number;
  /** Set on the first report of a rebuild: why the saved graphs were not used. */
  reason?: string;
}

const count = (n: number) => n.toLocaleString("en-US");

export function vectorIndexReporter(log: (line: string) => void, stream: NodeJS.WriteStream = process.stderr): (progress: VectorIndexProgress) => void {
  let bar: cliProgress.SingleBar | null = null;
  let lastLine = 0;
  return ({ done, total, reason }) => {
    if (reason) log(`vector index: ${reason}; building it for ${count(total)} organizations (/ready answers 503 until it is done)`);
    if (stream.isTTY) {
      if (!bar) {
        bar = new cliProgress.SingleBar(
          { stream, format: "vector index {bar} {value}/{total} organizations | ETA {eta_formatted}", hideCursor: true },
          cliProgress.Presets.shades_classic,
        );
        bar.start(total, done);
      }
      bar.setTotal(total);
      bar.update(done);
      if (done >= total) {
        bar.stop();
        bar = null;
      }
      return;
    }
    if (done >= total || Date.now() - lastLine >= 5_000) {
      lastLine = Date.now();
      log(`vector index: ${count(done)}/${count(total)} organizations${done >= total ? ", done" : ""}`);
    }
  };
}
