//go:build !linux

package main

import (
	"errors"
	"time"
)

// threadCPUTime is not implemented on this system; -clock cpu is refused.
func threadCPUTime() (time.Duration, error) {
	return 0, errors.New("-clock cpu needs Linux")
}
