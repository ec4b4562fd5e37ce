//go:build !linux

package feature

import "errors"

// ErrEventfdDeferTaskrun: see the Linux build.
var ErrEventfdDeferTaskrun = errors.New("uring: this kernel's eventfd stops signalling DEFER_TASKRUN completion work")

// EventfdSignalsDeferredWork: no io_uring here.
func EventfdSignalsDeferredWork() error { return ErrUnsupported }

// ErrEventfdDeferTaskrunLate: see the Linux build.
var ErrEventfdDeferTaskrunLate = errors.New("uring: this kernel's eventfd signals DEFER_TASKRUN completion work late")
