//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package kgmem

import (
	"fmt"
	"os"
)

// lockFile opens (creating) the lock file at path. On this platform kgmem
// takes no lock: two Opens of the same path, in one process or two, are
// not detected and would corrupt the journal. Callers must make sure that
// only one Open of a path is live at a time.
func lockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("kgmem: open lock file: %w", err)
	}
	return f, nil
}

// unlockFile closes the lock file.
func unlockFile(f *os.File) error { return f.Close() }

// syncDir syncs a directory where the platform allows it; where it does
// not (Windows), renames are made durable by the file system itself and
// errors are ignored.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return nil
	}
	d.Sync()
	d.Close()
	return nil
}
