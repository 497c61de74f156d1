/** CSV read back strictly, to check what Warden writes (lib/jobs/render/csv.ts). RFC 4180: records of fields, quoted fields with doubled quotes and line breaks; every record ends CRLF. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = "";
  let record: string[] = [];
  for (let i = 0; i < text.length; ) {
    if (text[i] === '"' && field === "") {
      // A quoted field: up to the quote that is not doubled.
      for (i++; ; i++) {
        if (i >= text.length) throw new Error("a quoted field is not closed");
        if (text[i] !== '"') field += text[i];
        else if (text[i + 1] === '"') field += text[i++];
        else break;
      }
      i++;
      if (text[i] !== "," && text.slice(i, i + 2) !== "\r\n") throw new Error(`text after a quoted field at ${i}`);
      continue;
    }
    if (text[i] === ",") { record.push(field); field = ""; i++; continue; }
    if (text.slice(i, i + 2) === "\r\n") { record.push(field); records.push(record); record = []; field = ""; i += 2; continue; }
    if (/["\r\n]/.test(text[i]!)) throw new Error(`bare ${JSON.stringify(text[i])} at ${i}: not RFC 4180`);
    field += text[i++];
  }
  if (field !== "" || record.length) throw new Error("the last record does not end with CRLF");
  return records;
}
