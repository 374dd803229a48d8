import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { importFile } from "../src/index";
import { recordingUpsert } from "./helpers";

const dir = mkdtempSync(join(tmpdir(), "orgsim-formats-"));
const write = (name: string, content: string) => {
  const file = join(dir, name);
  writeFileSync(file, content);
  return file;
};

describe("file details", () => {
  it("NDJSON: BOM, CRLF, blank lines and a last line without a newline", async () => {
    const file = write("crlf.ndjson", '\uFEFF{"id": 1, "name": "A"}\r\n\r\n{"id": 2, "name": ""}\r\n{"id": 3, "name": "C"}');
    const sink = recordingUpsert();
    const report = await importFile({ file, mapping: { format: "ndjson", id: "id", fields: { name: "name" } }, upsert: sink.upsert });
    expect(report).toMatchObject({ read: 3, imported: 2, failed: [{ line: 3, message: 'name (from "name"): is empty' }] });
    expect([...sink.store().values()].map((r) => r.name)).toEqual(["A", "C"]);
  });

  it("NDJSON: characters of several bytes, across the reader's 256 KiB chunks too, and bytes that are not UTF-8", async () => {
    const names = ["Zürich Ünïcode AG", "Ω∑ Labs", "東京 Robotics", "Emoji 🚀 Co"];
    const second = names.map((name, i) => JSON.stringify({ id: i + 2, name }));
    // The first line is as long as to put the "ü" of the second line's name across the first chunk's end (its two bytes on either side).
    const pad = "x".repeat(256 * 1024 - 1 - '{"id":1,"name":"A","pad":""}\n'.length - (second[0] as string).indexOf("ü"));
    const lines = [`{"id":1,"name":"A","pad":"${pad}"}`, ...second];
    const text = Buffer.from(`${lines.join("\n")}\n`, "utf8");
    const invalid = Buffer.concat([Buffer.from('{"id": 9, "name": "Caf'), Buffer.from([0xe9]), Buffer.from('"}\n')]);
    const file = join(dir, "multibyte.ndjson");
    writeFileSync(file, Buffer.concat([text, invalid]));
    const sink = recordingUpsert();
    const report = await importFile({ file, mapping: { format: "ndjson", id: "id", fields: { name: "name" } }, upsert: sink.upsert });
    expect(report).toMatchObject({ read: 6, imported: 6, failedCount: 0 });
    expect([...sink.store().values()].map((r) => r.name)).toEqual(["A", ...names, "Caf\uFFFD"]);
  });

  it("NDJSON: a line that is not an object", async () => {
    const file = write("array.ndjson", '[1, 2]\n{"id": 1, "name": "A"}\n');
    const report = await importFile({ file, mapping: { format: "ndjson", id: "id", fields: { name: "name" } }, upsert: recordingUpsert().upsert });
    expect(report.failed).toEqual([{ line: 1, message: "a record must be an object, got [1,2]" }]);
  });

  it("CSV: CRLF with empty lines and quoted line breaks keeps line numbers right", async () => {
    const file = write("crlf.csv", 'id,name,about\r\n1,A,"two\r\nlines"\r\n\r\n2,,x\r\n3,C,y\r\n4,D\r\n');
    const report = await importFile({
      file,
      mapping: { format: "csv", id: "id", fields: { name: "name", description: "about" } },
      upsert: recordingUpsert().upsert,
    });
    expect(report.read).toBe(4);
    expect(report.failed.map((f) => f.line)).toEqual([5, 7]);
    expect(report.imported).toBe(2);
  });

  it("CSV: delimiter, quote and encoding options", async () => {
    const file = join(dir, "latin1.csv");
    writeFileSync(file, Buffer.from("id;name;city\n1;'Caf\u00e9; Bar';Z\u00fcrich\n", "latin1"));
    const sink = recordingUpsert();
    await importFile({
      file,
      mapping: { format: "csv", csv: { delimiter: ";", quote: "'", encoding: "latin1" }, id: "id", fields: { name: "name", "headquarters.city": "city" } },
      upsert: sink.upsert,
    });
    expect(sink.store().get(1)).toMatchObject({ name: "Café; Bar", location: { headquarters: { city: "Zürich" } } });
  });

  it("JSON: a top-level array; positions are array indexes", async () => {
    const file = write("list.json", JSON.stringify([{ id: 1, name: "A" }, { id: "x", name: "B" }, "nope"]));
    const report = await importFile({ file, mapping: { format: "json", id: "id", fields: { name: "name" } }, upsert: recordingUpsert().upsert });
    expect(report).toMatchObject({ unit: "index", read: 3, imported: 1 });
    expect(report.failed).toEqual([
      { line: 1, message: 'id (from "id"): "x" is not a whole number' },
      { line: 2, message: 'a record must be an object, got "nope"' },
    ]);
  });

  it("JSON: a file that is not JSON is one clear error", async () => {
    const file = write("broken.json", "[{");
    await expect(importFile({ file, mapping: { format: "json", id: "id", fields: { name: "name" } }, upsert: recordingUpsert().upsert })).rejects.toThrow(
      /broken\.json is not valid JSON/,
    );
  });
});
