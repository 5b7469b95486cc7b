package wal

import (
	"errors"
	"os"
)

// LockDir takes on dir the exclusive lock Open takes on its directory
// (see lockDir), for a caller that owns a directory of logs. An error for
// which IsHeld reports true means another open file holds the lock.
// UnlockDir releases it.
func LockDir(dir string) (*os.File, error) { return lockDir(dir) }

// UnlockDir releases a lock taken by LockDir.
func UnlockDir(f *os.File) error { return unlockDir(f) }

// IsHeld reports whether err says that LockDir found the lock held.
func IsHeld(err error) bool { return errors.Is(err, errHeld) }

// SyncDir syncs a directory, making renames, creations and removals in it
// durable, where the platform allows it.
func SyncDir(dir string) error { return syncDir(dir) }
