//go:build linux

package fallback

import (
	"errors"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// epoller is the fallback's poller on Linux: an epoll instance whose fds
// are registered one-shot for the directions tasks wait for, plus an
// eventfd for wakeups. The executor parks in Go's netpoller on the epoll
// fd itself (an epoll fd is readable while events are pending), so its
// thread is free while it waits, as with io_uring's eventfd park.
type epoller struct {
	epfd   int
	efd    int
	wfile  *os.File        // efd for wakers: its Write fails once closed (no reused fd)
	file   *os.File        // epfd, non-blocking, registered with Go's netpoller
	rc     syscall.RawConn // of file
	events [128]unix.EpollEvent
	n      int
	waits  map[int32]fdWaiters
	dead   bool // the park's deadline passed
	check  func(uintptr) bool
}

func newPoller() (poller, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("epoll_create1", err)
	}
	efd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(epfd)
		return nil, os.NewSyscallError("eventfd2", err)
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: -1}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, efd, &ev); err != nil {
		unix.Close(epfd)
		unix.Close(efd)
		return nil, os.NewSyscallError("epoll_ctl", err)
	}
	if err := unix.SetNonblock(epfd, true); err != nil {
		unix.Close(epfd)
		unix.Close(efd)
		return nil, os.NewSyscallError("fcntl", err)
	}
	p := &epoller{epfd: epfd, efd: efd, waits: make(map[int32]fdWaiters)}
	p.wfile = os.NewFile(uintptr(efd), "task-wake")
	p.file = os.NewFile(uintptr(epfd), "task-epoll") // non-blocking: netpoller-registered
	if p.rc, err = p.file.SyscallConn(); err != nil {
		p.file.Close()
		p.wfile.Close()
		return nil, err
	}
	p.check = p.collect
	return p, nil
}

// mask is the epoll mask for the directions w waits for.
func (w fdWaiters) mask() uint32 {
	var m uint32
	if len(w.rd) > 0 {
		m |= unix.EPOLLIN | unix.EPOLLRDHUP
	}
	if len(w.wr) > 0 {
		m |= unix.EPOLLOUT
	}
	return m
}

func (p *epoller) arm(wt *wait, fd int, ev uint32) error {
	w := p.waits[int32(fd)]
	w.add(wt, ev)
	if err := p.ctl(fd, w.mask()); err != nil {
		p.disarm(wt, fd, ev)
		if errors.Is(err, unix.EPERM) {
			return errNotPollable // a regular file: always ready
		}
		return os.NewSyscallError("epoll_ctl", err)
	}
	p.waits[int32(fd)] = w
	return nil
}

// ctl arms fd one-shot for mask: MOD, or ADD when epoll no longer knows
// the fd (it forgets a closed fd by itself, and its number may be reused).
func (p *epoller) ctl(fd int, mask uint32) error {
	ev := unix.EpollEvent{Events: mask | unix.EPOLLONESHOT, Fd: int32(fd)}
	err := unix.EpollCtl(p.epfd, unix.EPOLL_CTL_MOD, fd, &ev)
	if errors.Is(err, unix.ENOENT) {
		err = unix.EpollCtl(p.epfd, unix.EPOLL_CTL_ADD, fd, &ev)
	}
	return err
}

func (p *epoller) disarm(wt *wait, fd int, ev uint32) {
	w, ok := p.waits[int32(fd)]
	if !ok {
		return
	}
	w.remove(wt, ev)
	p.store(fd, w)
}

// store keeps w for fd and re-arms what is still waited for (a one-shot
// event disarms the whole fd).
func (p *epoller) store(fd int, w fdWaiters) {
	if len(w.rd) == 0 && len(w.wr) == 0 {
		delete(p.waits, int32(fd))
		return
	}
	p.waits[int32(fd)] = w
	_ = p.ctl(fd, w.mask()) // the fd was closed under a waiter: its retry says so
}

// collect takes the pending events without waiting (the RawConn's
// readiness check: false makes Go wait for the epoll fd to be readable).
func (p *epoller) collect(uintptr) bool {
	n, err := unix.EpollWait(p.epfd, p.events[:], 0)
	if err != nil {
		n = 0
	}
	p.n = n
	return n > 0 || p.dead
}

func (p *epoller) ready(f *Backend) {
	if p.n == 0 {
		p.collect(0)
	}
	n := p.n
	p.n = 0
	for i := 0; i < n; i++ {
		e := &p.events[i]
		if e.Fd < 0 {
			var b [8]byte
			_, _ = unix.Read(p.efd, b[:]) // a wakeup: reset the counter
			continue
		}
		w, ok := p.waits[e.Fd]
		if !ok {
			continue
		}
		const errs = unix.EPOLLERR | unix.EPOLLHUP
		if len(w.rd) > 0 && e.Events&(unix.EPOLLIN|unix.EPOLLRDHUP|errs) != 0 {
			w.rd = wakeAll(f, w.rd)
		}
		if len(w.wr) > 0 && e.Events&(unix.EPOLLOUT|errs) != 0 {
			w.wr = wakeAll(f, w.wr)
		}
		p.store(int(e.Fd), w)
	}
}

func (p *epoller) park(deadline time.Time) error {
	p.dead = false
	if !deadline.IsZero() {
		if d := time.Until(deadline); d <= 0 {
			return nil
		}
		if err := p.file.SetReadDeadline(deadline); err != nil {
			return err
		}
	} else if err := p.file.SetReadDeadline(time.Time{}); err != nil {
		return err
	}
	err := p.rc.Read(p.check)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return nil
	}
	return err
}

var efdOne = [8]byte{1}

func (p *epoller) wake() { _, _ = p.wfile.Write(efdOne[:]) }

func (p *epoller) close() error {
	err := p.file.Close()
	_ = p.wfile.Close()
	return err
}
