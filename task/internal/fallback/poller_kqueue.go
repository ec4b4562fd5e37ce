//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package fallback

import (
	"errors"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// kpoller is the fallback's poller on the BSDs and macOS: a kqueue whose
// fds are registered one-shot per direction (EVFILT_READ, EVFILT_WRITE),
// plus a pipe for wakeups. The executor parks in Go's netpoller on the
// kqueue fd itself (a kqueue is readable while events are pending), so its
// thread is free while it waits, as epoller does on Linux.
type kpoller struct {
	kq     int
	wr, ww int             // the wake pipe's ends
	wfile  *os.File        // ww for wakers: its Write fails once closed (no reused fd)
	file   *os.File        // kq, non-blocking, registered with Go's netpoller
	rc     syscall.RawConn // of file
	events [128]unix.Kevent_t
	n      int
	waits  map[int32]fdWaiters
	dead   bool
	check  func(uintptr) bool
}

func newPoller() (poller, error) {
	kq, err := unix.Kqueue()
	if err != nil {
		return nil, os.NewSyscallError("kqueue", err)
	}
	unix.CloseOnExec(kq)
	var p [2]int
	if err := unix.Pipe(p[:]); err != nil {
		unix.Close(kq)
		return nil, os.NewSyscallError("pipe", err)
	}
	fail := func(err error) (poller, error) {
		unix.Close(kq)
		unix.Close(p[0])
		unix.Close(p[1])
		return nil, err
	}
	for _, fd := range []int{kq, p[0], p[1]} {
		unix.CloseOnExec(fd)
		if err := unix.SetNonblock(fd, true); err != nil {
			return fail(os.NewSyscallError("fcntl", err))
		}
	}
	var ev [1]unix.Kevent_t
	unix.SetKevent(&ev[0], p[0], unix.EVFILT_READ, unix.EV_ADD)
	if _, err := unix.Kevent(kq, ev[:], nil, nil); err != nil {
		return fail(os.NewSyscallError("kevent", err))
	}
	k := &kpoller{kq: kq, wr: p[0], ww: p[1], waits: make(map[int32]fdWaiters)}
	k.wfile = os.NewFile(uintptr(p[1]), "task-wake")
	k.file = os.NewFile(uintptr(kq), "task-kqueue")
	if k.rc, err = k.file.SyscallConn(); err != nil {
		k.file.Close()
		k.wfile.Close()
		unix.Close(p[0])
		return nil, err
	}
	k.check = k.collect
	return k, nil
}

func (p *kpoller) arm(wt *wait, fd int, ev uint32) error {
	w := p.waits[int32(fd)]
	w.add(wt, ev)
	filter := unix.EVFILT_READ
	if ev == pollOut {
		filter = unix.EVFILT_WRITE
	}
	var kev [1]unix.Kevent_t
	unix.SetKevent(&kev[0], fd, filter, unix.EV_ADD|unix.EV_ONESHOT)
	if _, err := unix.Kevent(p.kq, kev[:], nil, nil); err != nil {
		p.disarm(wt, fd, ev)
		return os.NewSyscallError("kevent", err)
	}
	p.waits[int32(fd)] = w
	return nil
}

func (p *kpoller) disarm(wt *wait, fd int, ev uint32) {
	w, ok := p.waits[int32(fd)]
	if !ok {
		return
	}
	w.remove(wt, ev)
	p.store(fd, w)
}

// store keeps w for fd (an armed direction nobody waits for any more fires
// once and is then dropped by ready).
func (p *kpoller) store(fd int, w fdWaiters) {
	if len(w.rd) == 0 && len(w.wr) == 0 {
		delete(p.waits, int32(fd))
		return
	}
	p.waits[int32(fd)] = w
}

// collect takes the pending events without waiting.
func (p *kpoller) collect(uintptr) bool {
	n, err := unix.Kevent(p.kq, nil, p.events[:], &unix.Timespec{})
	if err != nil {
		n = 0
	}
	p.n = n
	return n > 0 || p.dead
}

func (p *kpoller) ready(f *Backend) {
	if p.n == 0 {
		p.collect(0)
	}
	n := p.n
	p.n = 0
	for i := 0; i < n; i++ {
		e := &p.events[i]
		fd := int32(e.Ident)
		if int(fd) == p.wr {
			var b [64]byte
			for {
				if n, _ := unix.Read(p.wr, b[:]); n <= 0 {
					break
				}
			}
			continue
		}
		w, ok := p.waits[fd]
		if !ok {
			continue
		}
		if int(e.Filter) == unix.EVFILT_READ {
			w.rd = wakeAll(f, w.rd)
		} else {
			w.wr = wakeAll(f, w.wr)
		}
		p.store(int(fd), w)
	}
}

func (p *kpoller) park(deadline time.Time) error {
	p.dead = false
	if !deadline.IsZero() {
		if d := time.Until(deadline); d <= 0 {
			return nil
		}
	}
	if err := p.file.SetReadDeadline(deadline); err != nil {
		return err
	}
	err := p.rc.Read(p.check)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return nil
	}
	return err
}

func (p *kpoller) wake() { _, _ = p.wfile.Write([]byte{1}) }

func (p *kpoller) close() error {
	err := p.file.Close()
	_ = p.wfile.Close()
	_ = unix.Close(p.wr)
	return err
}
