package kgmem_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestExamples builds and runs every program under examples/ and checks
// the lines that show it worked, so the examples cannot rot.
func TestExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every example")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH")
	}
	tests := map[string][]string{
		"quickstart": {
			"Related to 张三 (2 hops, both directions):",
			"  0.72  基础架构部: 张三 —works_on→ Project Apollo —part_of→ 基础架构部",
			"How is 张三 related to Alice?",
			"  0.90  张三 —works_on→ Project Apollo ←leads— Alice",
		},
		"hybrid": {
			"Q: 张三负责什么项目？  (hybrid)",
			"  0.56  page   张三 —mentioned_in→ 人事档案 1024",
			"  0.38  entity Project Apollo —uses→ Raft",
		},
	}
	dir := t.TempDir()
	for name, want := range tests {
		t.Run(name, func(t *testing.T) {
			bin := filepath.Join(dir, name)
			build := exec.Command(goTool, "build", "-o", bin, "./examples/"+name)
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("go build ./examples/%s: %v\n%s", name, err, out)
			}
			run := exec.Command(bin)
			run.Dir = t.TempDir()
			out, err := run.CombinedOutput()
			if err != nil {
				t.Fatalf("examples/%s: %v\n%s", name, err, out)
			}
			lines := strings.Split(string(out), "\n")
			for _, w := range want {
				found := false
				for _, l := range lines {
					found = found || l == w
				}
				if !found {
					t.Errorf("examples/%s printed no line %q; it printed:\n%s", name, w, out)
				}
			}
		})
	}
	entries, err := os.ReadDir("examples")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, ok := tests[e.Name()]; e.IsDir() && !ok {
			t.Errorf("examples/%s is not run by this test", e.Name())
		}
	}
}
