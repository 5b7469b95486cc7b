package main

import (
	"strings"
	"syscall"
	"testing"

	"github.com/kgmem/kgmem"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The errors of a failed write and of a closed memory, as a client reads
// them: they say what went wrong and where ("the memory"), never the
// memory's directory.
func TestToolErrorsNameNoDirectory(t *testing.T) {
	dir := t.TempDir()
	mem, err := kgmem.OpenMemory(dir)
	require.NoError(t, err)
	t.Cleanup(func() { mem.Close() })
	cs := connectServer(t, NewServer(mem, dir))

	// No file may grow past 4 KiB, so appending an 8 KiB page to the
	// journal fails (Go ignores SIGXFSZ: the write returns EFBIG).
	var lim syscall.Rlimit
	require.NoError(t, syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim))
	small := lim
	small.Cur = 4096
	require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_FSIZE, &small))
	restored := false
	restore := func() {
		if !restored {
			restored = true
			require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim))
		}
	}
	t.Cleanup(restore)
	text := callErr(t, cs, "remember", map[string]any{"page_id": "p", "content": strings.Repeat("x", 8192)})
	restore()
	assert.NotContains(t, text, dir)
	assert.Contains(t, text, "remember: ingest: journal the memory: append record 1 at offset ")
	assert.Contains(t, text, ": journal failed: write the memory: file too large")

	// The writes after it are refused, and say why.
	text = callErr(t, cs, "remember", map[string]any{"extraction_text": `{"entities": ["Alice"]}`})
	assert.NotContains(t, text, dir)
	assert.Contains(t, text, "remember: ingest: journal the memory: append record 1 at offset ")
	assert.Contains(t, text, ": journal failed: write the memory: file too large (writes are refused since, until a Compact succeeds or the files are reopened)")

	// A closed memory. (Close reports the failed write again.)
	assert.ErrorIs(t, mem.Close(), kgmem.ErrJournal)
	assert.Equal(t, "remember: ingest: graph: closed", callErr(t, cs, "remember", map[string]any{"page_id": "p", "content": "y"}))
	assert.Equal(t, "related: graph: closed", callErr(t, cs, "related", map[string]any{"entity_id": "entity:alice"}))
	assert.Equal(t, "forget: graph: closed", callErr(t, cs, "forget", map[string]any{"page_id": "p"}))
}
