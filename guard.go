package kgmem

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"
)

// PanicError is the error of a source (a knowledge store or graph a
// MemoryRetriever asks) that panicked: Retrieve recovers the panic, reports
// the source as failed and carries on with the others.
type PanicError struct {
	Value any    // what the source panicked with
	Stack []byte // the goroutine's stack when it panicked
}

// Error returns "panic: " and the panic value.
func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// Unwrap returns the panic value when it is an error, so that errors.Is
// and errors.As see through the panic.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// guardResult carries a guarded call's outcome.
type guardResult[T any] struct {
	v   T
	err error
}

// guarded runs call in a goroutine of its own and returns its result, or
// ctx's error once ctx is done or timeout (when positive) has passed,
// whichever comes first: a call that ignores its context cannot hold up
// its caller. Such a call keeps running after guarded returns, with its
// context cancelled, and its result is dropped when it finishes. A panic
// in call becomes a *PanicError.
func guarded[T any](ctx context.Context, timeout time.Duration, call func(context.Context) (T, error)) (T, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	} else {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
	}
	done := make(chan guardResult[T], 1) // a late result never blocks its goroutine
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- guardResult[T]{err: &PanicError{Value: p, Stack: debug.Stack()}}
			}
		}()
		v, err := call(ctx)
		done <- guardResult[T]{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		select {
		case r := <-done: // it finished at the same moment
			return r.v, r.err
		default:
		}
		var zero T
		return zero, ctx.Err()
	}
}

// callSource runs call for a source: guarded, unless the source is one of
// kgmem's own in-process ones (own: see ownStore and ownGraph) and no
// timeout bounds it. Those run none of the user's code and check ctx
// themselves, so call runs on the calling goroutine, a panic in it
// becoming a *PanicError as in guarded; waiting for it outlasts ctx by no
// more than the step it is in, or than a write of the same graph or store
// that it waits for (it holds the lock while it applies and journals; for
// ReadFrom on a durable graph that includes writing the new snapshot).
func callSource[T any](ctx context.Context, timeout time.Duration, own bool, call func(context.Context) (T, error)) (v T, err error) {
	if !own || timeout > 0 {
		return guarded(ctx, timeout, call)
	}
	defer func() {
		if p := recover(); p != nil {
			var zero T
			v, err = zero, &PanicError{Value: p, Stack: debug.Stack()}
		}
	}()
	return call(ctx)
}
