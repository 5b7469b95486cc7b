package kgmem

import (
	"os"
	"path/filepath"
	"testing"
)

// The evaluations measure retrieval quality on whole data sets. They take
// minutes, and two of them read public data that is not part of this
// repository, so they run only when asked: set KGMEM_EVAL=1 (.ci/run does,
// in a step of its own without -race), and KGMEM_DATA to the directory
// holding the public data sets (default ../shared/data, beside the
// repository).

// needEvaluation skips tb unless KGMEM_EVAL is set.
func needEvaluation(tb testing.TB) {
	tb.Helper()
	if os.Getenv("KGMEM_EVAL") == "" {
		tb.Skip("an evaluation: set KGMEM_EVAL=1 to run it")
	}
}

// evalData returns the directory of the public data set name (such as
// "pathquestion") after needEvaluation, and skips tb when it is absent.
func evalData(tb testing.TB, name string) string {
	tb.Helper()
	needEvaluation(tb)
	root := os.Getenv("KGMEM_DATA")
	if root == "" {
		root = filepath.Join("..", "shared", "data")
	}
	dir := filepath.Join(root, name)
	if _, err := os.Stat(dir); err != nil {
		tb.Skipf("%s not available (KGMEM_DATA=%q): %v", name, root, err)
	}
	return dir
}

// NeedEvaluation and EvalData give the evaluations of package kgmem_test
// the same switch.
var NeedEvaluation, EvalData = needEvaluation, evalData

// long reports whether KGMEM_LONG is set: the brute-force reference
// comparisons, the crash loop, the torn-tail and bit-flip loops over a
// file's bytes and the cost tests then run at full size (CI runs them so,
// once, without -race); the default run checks the same properties on a
// deterministic sample of fewer and smaller inputs, and -short on fewer
// still. CONTRIBUTING.md lists the samples.
func long() bool { return os.Getenv("KGMEM_LONG") != "" }

// scaled is n under KGMEM_LONG, def by default, and short under -short.
func scaled(n, def, short int) int {
	switch {
	case long():
		return n
	case testing.Short():
		return short
	}
	return def
}

// Long and Scaled give the tests of package kgmem_test the same switch.
var Long, Scaled = long, scaled
