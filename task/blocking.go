package task

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
)

// Blocking runs fn, which may block (name resolution, a directory read,
// CPU-heavy work, cgo in the caller's code), on a goroutine of its own
// while only t parks: its executor runs its other tasks meanwhile. It
// returns what fn returned; a panic in fn is returned as an error.
//
// When t's context ends (or its executor closes) before fn returns,
// Blocking returns that error at once; fn runs on to its end and what it
// returns is dropped, so fn must own what it uses (it must not write into
// memory the task reuses after Blocking returned).
func Blocking[R any](t *T, fn func() (R, error)) (R, error) {
	var zero R
	if t == nil {
		return zero, argError("Blocking", "t", "is nil")
	}
	if fn == nil {
		return zero, argError("Blocking", "fn", "is nil")
	}
	if err := t.check(); err != nil {
		return zero, err
	}
	var res R
	var ferr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if p := recover(); p != nil {
				ferr = fmt.Errorf("task: panic in Blocking: %v", p)
			}
		}()
		res, ferr = fn()
	}()
	if err := t.waitRemote(done); err != nil {
		return zero, err
	}
	return res, ferr
}

// ReadDir lists the directory name as os.ReadDir does (sorted by name),
// through Blocking: io_uring has no getdents.
func (t *T) ReadDir(name string) ([]os.DirEntry, error) {
	return Blocking(t, func() ([]os.DirEntry, error) { return os.ReadDir(name) })
}

// LookupNetIP resolves host as net.DefaultResolver.LookupNetIP does for
// network ("ip", "ip4" or "ip6"), through Blocking under t's context (the
// resolver may block in the C library's resolver or wait for a DNS
// server).
func (t *T) LookupNetIP(network, host string) ([]netip.Addr, error) {
	var ctx context.Context = context.Background()
	if t != nil {
		ctx = t.Context()
	}
	return Blocking(t, func() ([]netip.Addr, error) { return net.DefaultResolver.LookupNetIP(ctx, network, host) })
}
