package kgmem_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestExamples builds and runs every program under examples/ and checks
// that it prints each line of its testdata/want.txt, so the examples cannot
// rot. Every example must have such a file. One go build builds them all,
// linking in parallel.
func TestExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every example")
	}
	t.Parallel()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH")
	}
	entries, err := os.ReadDir("examples")
	if err != nil {
		t.Fatal(err)
	}
	bins := t.TempDir()
	build := exec.Command(goTool, "build", "-o", bins+string(filepath.Separator), "./examples/...")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./examples/...: %v\n%s", err, out)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		name := e.Name()
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("examples", name, "testdata", "want.txt"))
			if err != nil {
				t.Fatalf("every example lists the lines it must print in testdata/want.txt: %v", err)
			}
			bin := filepath.Join(bins, name)
			if _, err := os.Stat(bin); err != nil {
				t.Fatalf("go build ./examples/... built no examples/%s: %v", name, err)
			}
			run := exec.Command(bin)
			run.Dir = t.TempDir() // examples that write files write them here
			out, err := run.CombinedOutput()
			if err != nil {
				t.Fatalf("examples/%s: %v\n%s", name, err, out)
			}
			lines := strings.Split(string(out), "\n")
			for _, w := range strings.Split(strings.TrimRight(string(want), "\n"), "\n") {
				if !slices.Contains(lines, w) {
					t.Errorf("examples/%s printed no line %q; it printed:\n%s", name, w, out)
				}
			}
		})
	}
}
