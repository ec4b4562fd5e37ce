package feature

import "github.com/pure-uring/uring/sys"

// Ring is what a probe that submits requests needs of a ring: package
// uring's Ring, which imports this package and so hands its constructor
// over (SetRingMaker) instead of this package mapping rings of its own.
type Ring interface {
	Fd() int
	GetSQE() (*sys.SQE, error)
	Submit() (int, error)
	WaitCQE() (*sys.CQE, error)
	Reap(dst []sys.CQE) int
	Reap32(dst []sys.CQE32) int
	Close() error
}

var ringMaker func(entries uint32, flags sys.SetupFlags) (Ring, error)

// SetRingMaker installs the constructor of the rings that probes submit
// to (package uring calls it at init).
func SetRingMaker(make func(entries uint32, flags sys.SetupFlags) (Ring, error)) { ringMaker = make }
