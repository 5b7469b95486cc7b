package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The errors of a locked and of a corrupt memory, as a tool reports them:
// they say what went wrong, in "the memory", not in its directory.
func TestKgErrorNamesNoDirectory(t *testing.T) {
	dir := t.TempDir()
	mem, err := kgmem.OpenMemory(dir)
	require.NoError(t, err)
	tl := newTools(mem, dir)

	_, err = kgmem.OpenMemory(dir)
	require.ErrorIs(t, err, kgmem.ErrLocked)
	require.ErrorContains(t, err, dir)
	assert.Equal(t, "remember: open the memory: already open in this process (Close it first): locked", tl.kgError("remember", err).Error())

	_, err = mem.Ingest(t.Context(), kgmem.KnowledgePage{ID: "p", Content: "hello"}, kgmem.Extraction{})
	require.NoError(t, err)
	require.NoError(t, mem.Close())
	journal := filepath.Join(dir, "memory.journal")
	data, err := os.ReadFile(journal)
	require.NoError(t, err)
	for i := range data {
		data[i] ^= 0x55
	}
	require.NoError(t, os.WriteFile(journal, data, 0o644))
	_, err = kgmem.OpenMemory(dir)
	require.ErrorIs(t, err, kgmem.ErrCorrupt)
	require.ErrorContains(t, err, dir)
	text := tl.kgError("recall", err).Error()
	assert.NotContains(t, text, dir)
	assert.True(t, strings.HasPrefix(text, "recall: journal the memory: offset 0: "), text)
	assert.True(t, strings.HasSuffix(text, ": corrupt"), text)
}

func TestRedactor(t *testing.T) {
	for _, tt := range []struct{ dir, in, want string }{
		{"/tmp/m", "kgmem: open /tmp/m: held by another process: locked", "kgmem: open the memory: held by another process: locked"},
		{"/tmp/m", "journal /tmp/m/memory.journal: closed", "journal the memory: closed"},
		{"/tmp/m/", "write /tmp/m/memory.journal.tmp-123: file too large", "write the memory: file too large"},
		{"/tmp/m", "/tmp/m", "the memory"},
		{"/tmp/m", "/tmp/m/", "the memory"},
		{"/tmp/m", `open "/tmp/m/x": no such file (/tmp/m)`, `open "the memory": no such file (the memory)`},
		{"/tmp/m", "/tmp/m/a and /tmp/m/b, /tmp/m;", "the memory and the memory, the memory;"},
		{"/tmp/m", "/tmp/mx/y /var/tmp/m/y /tmp/m.old", "/tmp/mx/y /var/tmp/m/y /tmp/m.old"},
		{"mem", "kgmem: journal mem/memory.journal: closed", "kgmem: journal the memory: closed"},
		{"./mem", "kgmem: open ./mem: locked; memory mem", "kgmem: open the memory: locked; memory the memory"},
		{"", "kgmem: open /tmp/m: locked", "kgmem: open /tmp/m: locked"},
		{"/", "kgmem: open /memory.journal: locked", "kgmem: open /memory.journal: locked"},
	} {
		assert.Equal(t, tt.want, newRedactor(tt.dir).redact(tt.in), "%q in %q", tt.dir, tt.in)
	}

	// A directory given through a symbolic link is known by both paths,
	// and by its absolute path when given as a relative one.
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	require.NoError(t, os.Symlink(real, link))
	r := newRedactor(link)
	assert.Equal(t, "open the memory, the memory", r.redact("open "+filepath.Join(link, "memory.journal")+", "+filepath.Join(real, "memory.journal")))
	t.Chdir(filepath.Dir(link))
	r = newRedactor("link")
	assert.Equal(t, "open the memory, the memory, the memory", r.redact("open link/memory.journal, "+link+", "+real))
}
