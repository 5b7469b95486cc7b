package kgmem_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// internalLayers places every package under internal/ in a layer of
// DESIGN.md ("Layers"): a package may import the packages of its own
// layer and of the layers above it (smaller numbers), never one below it
// and never a package of the module outside internal/ (the root, kgmemtest,
// render). Layer 0 holds the helpers every layer uses; layer 8 the
// generators and fixtures that only tests and benchmarks import.
var internalLayers = map[string]int{
	"quote": 0, "errmsg": 0,
	"textrule":   1, // text
	"traverse":   2, // model and core graph: traversals, linking, citations
	"nameindex":  2,
	"citeindex":  2,
	"bm25":       3, // content
	"vecindex":   3,
	"embedmodel": 3,
	"question":   4, // retrieval
	"walk":       4,
	"spread":     4,
	"diversify":  4,
	"extract":    5, // ingest
	"wal":        6, // durability
	"jsonl":      6,
	"draw":       7, // rendering
	"benchgraph": 8, "extractset": 8, "qaset": 8, "timeset": 8, "vectest": 8, "hashembed": 8,
}

// TestInternalLayers reads the imports of every non-test file under
// internal/ and fails when a package imports the module outside
// internal/, imports a package of a layer below its own, or is missing
// from internalLayers.
func TestInternalLayers(t *testing.T) {
	const module = "github.com/kgmem/kgmem"
	dirs, err := os.ReadDir("internal")
	require.NoError(t, err)
	var problems []string
	seen := 0
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		pkg := d.Name()
		layer, ok := internalLayers[pkg]
		if !ok {
			problems = append(problems, "internal/"+pkg+" has no layer in internalLayers")
			continue
		}
		seen++
		files, err := filepath.Glob(filepath.Join("internal", pkg, "*.go"))
		require.NoError(t, err)
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			require.NoError(t, err)
			for _, imp := range af.Imports {
				path, err := strconv.Unquote(imp.Path.Value)
				require.NoError(t, err)
				if path != module && !strings.HasPrefix(path, module+"/") {
					continue
				}
				dep, inside := strings.CutPrefix(path, module+"/internal/")
				if !inside || strings.Contains(dep, "/") {
					problems = append(problems, f+" imports "+path+", outside internal/")
					continue
				}
				if l, ok := internalLayers[dep]; ok && l > layer {
					problems = append(problems, f+" (layer "+strconv.Itoa(layer)+") imports internal/"+dep+" (layer "+strconv.Itoa(l)+")")
				}
			}
		}
	}
	slices.Sort(problems)
	require.Empty(t, problems)
	require.Equal(t, len(internalLayers), seen, "internalLayers names a package internal/ does not hold")
}
