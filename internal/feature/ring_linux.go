//go:build linux

package feature

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	"github.com/pure-uring/uring/sys"
	"golang.org/x/sys/unix"
)

// probe is a ring made for one try-and-see probe, and what the probe lends
// the kernel (memory, fds, pinned values), all released by close. A raw
// ring (newProbe) is only an fd, for setup, register and enter calls; a
// probe that submits requests runs on a Ring (newRingProbe).
type probe struct {
	fd   int
	p    sys.Params
	ring Ring           // the Ring behind fd (newRingProbe), or nil
	mem  [][]byte       // anonymous memory to unmap after the ring is closed
	fds  []int          // other fds to close
	pin  runtime.Pinner // Go memory whose address the kernel reads
	reg  int            // registered ring index to drop, or -1
}

// newProbe makes a raw ring of entries with params p. NO_MMAP rings get
// the one page of SQ/CQ ring memory and the one page of SQEs they need.
func newProbe(entries uint32, p sys.Params) (*probe, error) {
	r := &probe{fd: -1, reg: -1, p: p}
	if r.p.Flags&sys.SetupNoMmap != 0 {
		rings, err := r.anon(os.Getpagesize())
		if err != nil {
			return nil, err
		}
		sqes, err := r.anon(os.Getpagesize())
		if err != nil {
			r.close()
			return nil, err
		}
		r.p.SQOff.UserAddr = sys.SliceAddr(sqes)
		r.p.CQOff.UserAddr = sys.SliceAddr(rings)
	}
	fd, err := sys.Setup(entries, &r.p)
	if err != nil {
		r.close()
		return nil, err
	}
	if r.p.Flags&sys.SetupRegisteredFdOnly != 0 {
		r.reg = fd // only a registered index: dropped by close
	} else {
		r.fd = fd
	}
	return r, nil
}

// errNoRingMaker: the probe needs a Ring and package uring is not linked
// in (never the case outside this package's own tests).
var errNoRingMaker = errors.New("feature: no ring maker: package uring installs it")

// newRingProbe makes a Ring of entries with flags for a probe.
func newRingProbe(entries uint32, flags sys.SetupFlags) (*probe, error) {
	if ringMaker == nil {
		return nil, errNoRingMaker
	}
	r, err := ringMaker(entries, flags)
	if err != nil {
		return nil, err
	}
	return &probe{fd: r.Fd(), reg: -1, ring: r, p: sys.Params{Flags: flags}}, nil
}

// anon maps n bytes of zeroed memory that live until close.
func (r *probe) anon(n int) ([]byte, error) {
	b, err := sys.MmapAnon(n, false)
	if err != nil {
		return nil, err
	}
	r.mem = append(r.mem, b)
	return b, nil
}

// registerSelf registers the ring fd in the calling thread's registered
// ring table (REGISTER_RING_FDS) and returns the index.
func (r *probe) registerSelf() (int, error) {
	upd := sys.RsrcUpdate{Offset: ^uint32(0), Data: uint64(r.fd)}
	if _, err := register(r.fd, sys.RegisterRingFds, &upd, 1); err != nil {
		return -1, err
	}
	r.reg = int(upd.Offset)
	return r.reg, nil
}

// close drops the registered index, closes the ring and the other fds, and
// unmaps the memory.
func (r *probe) close() {
	if r.reg >= 0 {
		upd := sys.RsrcUpdate{Offset: uint32(r.reg)}
		register(r.reg, sys.UnregisterRingFds|sys.RegisterUseRegisteredRing, &upd, 1)
		r.reg = -1
	}
	if r.ring != nil {
		r.ring.Close()
		r.ring, r.fd = nil, -1
	}
	if r.fd >= 0 {
		sys.Close(r.fd)
		r.fd = -1
	}
	for _, fd := range r.fds {
		unix.Close(fd)
	}
	r.fds = nil
	r.pin.Unpin()
	for _, b := range r.mem {
		sys.Munmap(b)
	}
	r.mem = nil
}

// errnoOf returns the errno inside err, or 0.
func errnoOf(err error) unix.Errno {
	var e unix.Errno
	if errors.As(err, &e) {
		return e
	}
	return 0
}

// setupFailed classifies an io_uring_setup(2) error met while probing
// feature (added in since): EINVAL means the kernel does not know it
// (final); EPERM/ENOSYS mean io_uring is unavailable, or, when it is
// available, that this process may not use feature (not final); anything
// else is a failed probe (not final).
func setupFailed(feature, since string, err error) error {
	switch errnoOf(err) {
	case unix.EINVAL:
		return unsupported(feature, since, "", err)
	case unix.EPERM, unix.ENOSYS:
		if aerr := Available(); aerr != nil {
			return notFinal(aerr)
		}
		return notFinal(unsupported(feature, "", "not permitted to this process", err))
	}
	return notFinal(fmt.Errorf("feature: probing %s: %w", feature, err))
}

// plainRingFailed is setupFailed for the plain ring a probe makes to ask
// about something else (what): io_uring_setup rejecting even that is not a
// question of versions.
func plainRingFailed(what string, err error) error {
	if errnoOf(err) == unix.EINVAL {
		return unsupported("io_uring", "", "io_uring_setup rejects a plain ring (made for "+what+")", err)
	}
	return setupFailed(what, "", err)
}

// lockThread pins the calling goroutine to its thread for a probe that
// makes several calls on one ring (registered ring fds, io-wq and
// SINGLE_ISSUER are per thread). Call the result to unlock.
func lockThread() func() {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}

// register is sys.Register for a probe's own ring, made again on EINTR:
// 5.10–5.12 quiesce the ring for most register opcodes and wait for it
// interruptibly, so a signal (Go's preemption) ends the call with EINTR
// before it did anything. Nothing else interrupts a probe ring's calls.
func register[T any](fd int, op sys.RegisterOp, arg *T, nrArgs uint32) (int, error) {
	for {
		n, err := sys.Register(fd, op, arg, nrArgs)
		if errnoOf(err) != unix.EINTR {
			return n, err
		}
	}
}
