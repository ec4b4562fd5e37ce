package uring

import (
	"github.com/pure-uring/uring/internal/feature"
	"github.com/pure-uring/uring/sys"
)

// fdClosing is set in lifetime.fdUsers once CloseRingFd began: no new use
// of the real fd is handed out, and the fd is closed when the uses in
// flight are done.
const fdClosing = 1 << 62

// fdUse takes a use of the real ring fd for one call and returns it (-1
// for a WithRegisteredFdOnly ring), or ok false once CloseRingFd began:
// the caller then reaches the ring through its registered index, or not at
// all. Each ok use ends with fdDone.
func (l *lifetime) fdUse() (fd int, ok bool) {
	if l.fdUsers.Add(1)&fdClosing != 0 {
		l.fdDone()
		return -1, false
	}
	return l.fd, true
}

// fdDone ends a use fdUse handed out; the last one after CloseRingFd
// began wakes it. (A refused fdUse also ends here: it only ever finds the
// count at zero once no use is left.)
func (l *lifetime) fdDone() {
	if l.fdUsers.Add(-1) == fdClosing {
		l.fdIdleOnce.Do(func() { close(l.fdIdle) })
	}
}

// CloseRingFd closes the ring's fd and keeps the ring only in the calling
// thread's table of registered rings: io_uring_close_ring_fd(3) (liburing
// 2.4). The ring must have a registered index (WithRegisteredRingFd; a
// WithRegisteredFdOnly ring has no fd to close), and the kernel must take
// io_uring_register(2) calls through it (IORING_FEAT_REG_REG_RING, Linux
// 6.3; before it an *UnsupportedError naming 6.3). Afterwards Fd returns
// -1, RegisterTarget the index, register calls go through the index, and
// what needs a real fd answers an error: Resize (the new rings are mapped
// through it), WithAttachWQ, PostWake and PostCQE (the ring-less MSG_RING
// names a ring by fd), mmap-ed buffer rings and zero-copy receive areas.
//
// A registered ring index belongs to the thread that registered it (the
// one that called New): from then on every call on the ring must come
// from that thread, with the goroutine locked to it
// (runtime.LockOSThread); on any other, the calls that enter the kernel
// and UseTarget return ErrNotIssuer. Close on that thread
// drops the ring; closed on another, the ring lives on in the registering
// thread's table until that thread exits (the Go runtime may keep a thread
// for the life of the process).
//
// Calls racing CloseRingFd that use the fd finish with it open; it is
// closed when they are done. It returns ErrClosed after Close, and an
// error when the fd is already closed.
func (r *Ring) CloseRingFd() error {
	l := r.life
	switch {
	case l.regOnly:
		return &OptionError{Option: "CloseRingFd", Reason: "a WithRegisteredFdOnly ring has no fd"}
	case l.regIndex < 0:
		return &OptionError{Option: "CloseRingFd", Reason: "the ring has no registered index (create it WithRegisteredRingFd)"}
	case r.params.Features&sys.FeatRegRegRing == 0:
		if err := feature.Feature(sys.FeatRegRegRing); err != nil {
			return err
		}
		return ErrUnsupported
	}
	if !l.acquire() {
		return ErrClosed
	}
	defer l.releaseRef()
	prev := l.fdUsers.Or(fdClosing)
	if prev&fdClosing != 0 {
		return &OptionError{Option: "CloseRingFd", Reason: "the ring fd is already closed"}
	}
	// Wait out the calls that still use the fd (register calls, a
	// ring-less wake; none of them waits in the kernel for long): the
	// last one's fdDone wakes us.
	if prev != 0 {
		<-l.fdIdle
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fdClosed {
		return nil
	}
	l.fdGone.Store(true)
	return sys.Close(l.fd)
}
