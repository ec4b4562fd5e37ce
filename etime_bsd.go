//go:build freebsd || openbsd || dragonfly

package uring

import "errors"

// errETIME: these systems have no ETIME, and no ring that could return it
// (New returns ErrUnsupported); a sentinel keeps the wait code portable.
var errETIME = errors.New("ETIME")
