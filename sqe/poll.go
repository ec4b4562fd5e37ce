//go:build linux

package sqe

import (
	"strconv"

	"github.com/pure-uring/uring/sys"
	"golang.org/x/sys/unix"
)

// Poll event masks are 32-bit (FEAT_POLL_32BITS, 5.9) and stored as is:
// this package supports little-endian machines only, where no swap is due.

// PollAdd prepares a one-shot poll(2) of fd for events (unix.POLLIN, ...):
// io_uring_prep_poll_add(3), IORING_OP_POLL_ADD, Linux 5.1. The result is
// the ready mask. No memory is held.
func PollAdd(s *sys.SQE, fd int, events uint32) error {
	if err := checkFd("PollAdd", "fd", fd); err != nil {
		return err
	}
	prep(s, sys.OpPollAdd, fd, 0, 0, 0)
	s.OpFlags = events
	return nil
}

// PollMultishot prepares a poll that stays armed, posting a CQE (with
// F_MORE) each time fd becomes ready: io_uring_prep_poll_multishot(3),
// IORING_OP_POLL_ADD with IORING_POLL_ADD_MULTI, Linux 5.13. No memory is
// held.
func PollMultishot(s *sys.SQE, fd int, events uint32) error {
	if err := checkFd("PollMultishot", "fd", fd); err != nil {
		return err
	}
	prep(s, sys.OpPollAdd, fd, 0, sys.PollAddMulti, 0)
	s.OpFlags = events
	return nil
}

// PollRemove prepares the removal of the poll whose user_data is userData
// (it completes with ECANCELED; this request with 0 or ENOENT):
// io_uring_prep_poll_remove(3), IORING_OP_POLL_REMOVE, Linux 5.1. No memory
// is held.
func PollRemove(s *sys.SQE, userData uint64) {
	prep(s, sys.OpPollRemove, -1, userData, 0, 0)
}

// PollUpdate prepares an update of the poll whose user_data is oldData:
// with sys.PollUpdateEvents in flags its mask becomes events, with
// sys.PollUpdateUserData its user_data becomes newData, and with
// sys.PollAddMulti it becomes multishot: io_uring_prep_poll_update(3),
// IORING_OP_POLL_REMOVE, Linux 5.13. No memory is held.
func PollUpdate(s *sys.SQE, oldData, newData uint64, events, flags uint32) error {
	if err := checkFlags("PollUpdate", "flags", flags, sys.PollAddMulti|sys.PollUpdateEvents|sys.PollUpdateUserData|sys.PollAddLevel); err != nil {
		return err
	}
	prep(s, sys.OpPollRemove, -1, oldData, flags, newData)
	s.OpFlags = events
	return nil
}

// EpollCtl prepares epoll_ctl(2) on epoll instance epfd: op
// (unix.EPOLL_CTL_ADD, MOD, DEL) of fd with *ev (nil for DEL):
// io_uring_prep_epoll_ctl(3), IORING_OP_EPOLL_CTL, Linux 5.6. The kernel
// reads *ev until the CQE.
func EpollCtl(s *sys.SQE, epfd, fd, op int, ev *unix.EpollEvent) error {
	if err := firstErr(checkFd("EpollCtl", "epfd", epfd), checkFd("EpollCtl", "fd", fd)); err != nil {
		return err
	}
	switch {
	case op != unix.EPOLL_CTL_ADD && op != unix.EPOLL_CTL_MOD && op != unix.EPOLL_CTL_DEL:
		return argErr("EpollCtl", "op", "= "+strconv.Itoa(op)+" is not EPOLL_CTL_ADD, MOD or DEL")
	case ev == nil && op != unix.EPOLL_CTL_DEL:
		return argErr("EpollCtl", "ev", "is nil")
	}
	prep(s, sys.OpEpollCtl, epfd, ptrOf(ev), uint32(op), uint64(fd))
	return nil
}

// EpollWait prepares epoll_wait(2) on epfd for up to len(events) events:
// io_uring_prep_epoll_wait(3), IORING_OP_EPOLL_WAIT, Linux 6.15. flags
// must be 0: no released kernel takes any (a multishot flag was proposed
// but not merged). The result is the number of events. The kernel writes
// events until the CQE.
func EpollWait(s *sys.SQE, epfd int, events []unix.EpollEvent, flags uint32) error {
	if err := firstErr(checkFd("EpollWait", "epfd", epfd), checkFlags("EpollWait", "flags", flags, 0)); err != nil {
		return err
	}
	if len(events) == 0 || len(events) > maxInt32 {
		return argErr("EpollWait", "len(events)", "= "+strconv.Itoa(len(events))+" is not in [1, 2^31)")
	}
	prep(s, sys.OpEpollWait, epfd, addrOf(events), uint32(len(events)), 0)
	s.OpFlags = flags
	return nil
}
