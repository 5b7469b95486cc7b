//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package wal

import "os"

// lockDir opens dir. On this platform kgmem takes no operating-system
// lock: a second Open of the directory in the same process is still
// refused (see Open), but one in another process is not detected, and the
// caller must make sure it does not happen.
func lockDir(dir string) (*os.File, error) { return os.Open(dir) }

// unlockDir closes the directory opened by lockDir.
func unlockDir(f *os.File) error { return f.Close() }

// syncDir syncs a directory where the platform allows it; where it does
// not (Windows), the file system makes renames durable itself and the
// error is ignored.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return nil
	}
	d.Sync()
	d.Close()
	return nil
}
