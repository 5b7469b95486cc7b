//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package wal

import (
	"errors"
	"os"
	"syscall"
)

// lockDir opens dir and takes an exclusive flock(2) on it without waiting.
// The lock is on the directory itself, so that no file in it (which a
// compaction replaces, or a user may delete) carries it; it belongs to the
// open file, so a second Open in the same process conflicts with the first
// just as one in another process does, and the kernel releases it when the
// process dies. errHeld reports a lock held by someone else.
func lockDir(dir string) (*os.File, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
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
			return nil, errHeld
		}
		return nil, err
	}
	return f, nil
}

// unlockDir releases the lock taken by lockDir.
func unlockDir(f *os.File) error {
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
