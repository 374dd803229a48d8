import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createProgress, type ImportProgress } from "../src/index";

const sink = (isTTY: boolean) => {
  let text = "";
  const stream = Object.assign(
    new Writable({
      write(chunk, _e, done) {
        text += chunk.toString();
        done();
      },
    }),
    { isTTY, columns: 120 },
  );
  return { stream, text: () => text };
};
const at = (read: number, bytesRead: number): ImportProgress => ({ read, imported: read - 1, failed: 1, bytesRead, totalBytes: 1000 });

describe("progress", () => {
  it("prints plain lines when stderr is not a terminal", () => {
    const out = sink(false);
    const progress = createProgress({ stream: out.stream, label: "companies.ndjson", intervalSeconds: 0 });
    progress.update(at(1000, 250));
    progress.update(at(4000, 1000));
    progress.stop();
    expect(out.text()).toBe("companies.ndjson 25% · 1,000 read · 999 imported · 1 failed\ncompanies.ndjson 100% · 4,000 read · 3,999 imported · 1 failed\n");
  });

  it("stays quiet for short imports when not a terminal", () => {
    const out = sink(false);
    const progress = createProgress({ stream: out.stream, intervalSeconds: 60 });
    progress.update(at(10, 1000));
    progress.stop();
    expect(out.text()).toBe("");
  });

  it("draws a cli-progress bar on a terminal", () => {
    const out = sink(true);
    const progress = createProgress({ stream: out.stream, label: "yc" });
    progress.update(at(100, 500));
    progress.update(at(200, 1000));
    progress.stop();
    expect(out.text()).toContain("100% | 200 read | 199 imported | 1 failed");
  });
});
