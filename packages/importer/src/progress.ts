/**
 * Import progress on stderr: a cli-progress bar on a terminal, otherwise a
 * plain line every few seconds (logs and CI stay readable).
 */
import cliProgress from "cli-progress";
import type { ImportProgress } from "./import-file";

export interface ProgressReporter {
  update(progress: ImportProgress): void;
  stop(): void;
}

export interface ProgressOptions {
  stream?: NodeJS.WriteStream | NodeJS.WritableStream;
  /** Shown before the counts, e.g. the file name. */
  label?: string;
  /** Seconds between plain lines when the stream is not a terminal (default 5). */
  intervalSeconds?: number;
  /** Force the bar (true) or plain lines (false); default: bar only when the stream is a TTY. */
  tty?: boolean;
}

const count = (n: number) => n.toLocaleString("en-US");
const percent = (p: ImportProgress) => (p.totalBytes > 0 ? Math.min(100, Math.floor((p.bytesRead / p.totalBytes) * 100)) : 0);

export function createProgress(options: ProgressOptions = {}): ProgressReporter {
  const stream = options.stream ?? process.stderr;
  const label = options.label ? `${options.label} ` : "";
  const tty = options.tty ?? Boolean((stream as NodeJS.WriteStream).isTTY);

  if (tty) {
    const bar = new cliProgress.SingleBar(
      {
        stream,
        format: `${label}{bar} {percentage}% | {read} read | {imported} imported | {failed} failed | ETA {eta_formatted}`,
        hideCursor: true,
        clearOnComplete: false,
        etaBuffer: 50,
        fps: 5,
      },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      update(p) {
        const payload = { read: count(p.read), imported: count(p.imported), failed: count(p.failed) };
        if (!started) {
          bar.start(Math.max(p.totalBytes, 1), p.bytesRead, payload);
          started = true;
        } else {
          bar.update(p.bytesRead, payload);
        }
      },
      stop() {
        if (started) bar.stop();
      },
    };
  }

  const intervalMs = (options.intervalSeconds ?? 5) * 1000;
  let last = Date.now();
  let latest: ImportProgress | null = null;
  let printed: ImportProgress | null = null;
  const print = (p: ImportProgress) => {
    stream.write(`${label}${percent(p)}% · ${count(p.read)} read · ${count(p.imported)} imported · ${count(p.failed)} failed\n`);
    printed = p;
  };
  return {
    update(p) {
      latest = p;
      if (Date.now() - last >= intervalMs) {
        last = Date.now();
        print(p);
      }
    },
    stop() {
      // a last line only when the earlier ones showed progress (short imports print nothing)
      if (printed && latest && latest !== printed) print(latest);
    },
  };
}
