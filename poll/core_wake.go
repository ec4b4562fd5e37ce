//go:build linux

package poll

import (
	"os"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/internal/fdio"
	"github.com/pure-uring/uring/sqe"
)

// wakeFd ends a sleep in io_uring_enter on every kernel: the Core keeps a
// poll of this eventfd armed in its ring, and a waker writes the eventfd,
// which completes the poll with a CQE. Wakers write through the *os.File,
// which refuses writes once closed, so a late wake never reaches a reused
// fd number. (Ring-less IORING_REGISTER_SEND_MSG_RING, 6.13, and MSG_RING,
// 5.18, could post the CQE without the fd, but not on older kernels, and
// they aim at the ring's fd number, which a racing Close may free.)
type wakeFd struct {
	f     *os.File
	fd    int
	armed bool // its poll is in the ring
	buf   [8]byte
}

func (w *wakeFd) open() error {
	f, fd, err := fdio.Eventfd("poll-core-wake")
	if err != nil {
		return os.NewSyscallError("eventfd2", err)
	}
	w.f, w.fd = f, fd
	return nil
}

// signal completes the armed poll (any goroutine).
func (w *wakeFd) signal() {
	if w.f != nil {
		_, _ = w.f.Write(efdOne)
	}
}

// drain resets the counter (owner thread; the eventfd is non-blocking).
// After close it reads nothing: the number may be another file's by then.
func (w *wakeFd) drain() {
	if w.f != nil && w.fd >= 0 {
		_, _ = unix.Read(w.fd, w.buf[:])
	}
}

// close closes the eventfd (owner thread, as drain): a signal after it
// fails with os.ErrClosed, a drain reads nothing.
func (w *wakeFd) close() {
	if w.f != nil {
		_ = w.f.Close()
		w.fd = -1
	}
}

// armWake queues the poll of the wake eventfd (IORING_OP_POLL_ADD, one
// shot: every kernel has it) and submits it; false when the SQ is full or
// the owner is stopping (the poll would keep the ring from going quiet).
func (c *Core) armWake() bool {
	if c.wake.f == nil || c.wake.armed || c.stop.Load() {
		return c.wake.armed
	}
	s, err := c.ring.GetSQE()
	if err != nil {
		return false
	}
	_ = sqe.PollAdd(s, c.wake.fd, unix.POLLIN) // a valid fd and mask
	s.UserData = udWakePoll
	c.wake.armed = true
	// In the kernel before the owner's next wait (which may not submit).
	_, _ = c.ring.Submit()
	return true
}
