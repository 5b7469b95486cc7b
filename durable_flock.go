//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package kgmem

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockFile opens (creating) the lock file at path and takes an exclusive
// flock(2) on it without waiting. The lock belongs to the open file, so a
// second Open in the same process conflicts with the first just as one in
// another process does, and the kernel releases it when the process dies.
func lockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("kgmem: open lock file: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("kgmem: lock file %s is held by another Open: %w", path, ErrLocked)
		}
		return nil, fmt.Errorf("kgmem: lock %s: %w", path, err)
	}
	return f, nil
}

// unlockFile releases the lock taken by lockFile and closes the file. The
// file is left in place: deleting it could let two holders lock two
// different files of the same name.
func unlockFile(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncDir syncs a directory, making renames and creations in it durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
