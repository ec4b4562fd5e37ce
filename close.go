package uring

import (
	"errors"
	"time"

	"github.com/pure-uring/uring/sys"
)

// wakeUserData tags the CQE Close posts to wake a blocked waiter.
const wakeUserData = ^uint64(0) - 1

// acquire takes a reference for one syscall on the ring fd; false once
// Close has begun.
func (l *lifetime) acquire() bool {
	if l.refs.Add(1)&closedBit != 0 {
		l.refs.Add(-1)
		return false
	}
	return true
}

func (l *lifetime) releaseRef() { l.refs.Add(-1) }

// Close closes the ring. It may race any other call on the Ring: calls in
// the kernel are woken and finish first, later calls return ErrClosed, and
// ring memory a racing call still touches is replaced, not unmapped, until
// the Ring is garbage. Requests still in flight are cancelled by the
// kernel; memory they use must outlive their CQEs (the layers above wait
// for them before closing). A second Close returns ErrClosed.
func (r *Ring) Close() error {
	l := r.life
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed.Load() {
		return ErrClosed
	}
	l.closed.Store(true)
	r.closed.Store(true)
	l.refs.Or(closedBit)
	// Wake waiters blocked in io_uring_enter and wait for every syscall in
	// flight to return before the fd goes away (no fd-reuse races).
	deadline := time.Now().Add(5 * time.Second)
	for i := 0; l.refs.Load()&^closedBit != 0; i++ {
		if i%1000 == 0 {
			r.wake()
		}
		if time.Now().After(deadline) {
			// A waiter we cannot wake (a registered-only ring on another
			// thread): leave the ring to the cleanup rather than pull the fd
			// from under it.
			return errors.New("io_uring: Close: a wait in progress could not be woken; the ring is released when unreachable")
		}
		time.Sleep(time.Microsecond)
	}
	return l.shutdown()
}

// wake posts a CQE to the ring from outside it, so a blocked
// io_uring_enter returns: IORING_REGISTER_SEND_MSG_RING (6.13), else a
// MSG_RING from a throwaway ring.
func (r *Ring) wake() {
	l := r.life
	if l.fd < 0 {
		return
	}
	msg := sys.SQE{Opcode: sys.OpMsgRing, Fd: int32(l.fd), Addr: sys.MsgData, Off: wakeUserData}
	// A wait for n CQEs needs n of them to return.
	n := max(1, min(l.waitNr.Load(), r.cq.entries))
	sent := uint32(0)
	for ; sent < n; sent++ {
		if _, err := sys.Register(-1, sys.RegisterSendMsgRing, &msg, 1); err != nil {
			break
		}
	}
	if sent == n {
		return
	}
	tmp, err := New(2)
	if err != nil {
		return
	}
	defer tmp.Close()
	for ; sent < n; sent++ {
		s, err := tmp.GetSQE()
		if err != nil {
			break
		}
		*s = msg
		if _, err := tmp.SubmitAndWait(1); err != nil {
			break
		}
		tmp.Reap(make([]sys.CQE, 1))
	}
}

// shutdown releases the ring (called once, with mu held, after every
// syscall in flight returned). The mappings are replaced by zeroed
// anonymous memory instead of being unmapped, so a call racing Close reads
// zeros rather than faulting; the cleanup unmaps them.
func (l *lifetime) shutdown() error {
	err := l.closeFd()
	for _, b := range l.regions {
		if e := sys.MmapFixedAnon(b); e != nil && err == nil {
			err = e
		}
	}
	return err
}

// closeFd drops the ring's registration (on its own thread) and its fd.
func (l *lifetime) closeFd() error {
	if l.fdClosed {
		return nil
	}
	l.fdClosed = true
	var err error
	if l.regIndex >= 0 && sys.Gettid() == l.tid {
		upd := sys.RsrcUpdate{Offset: uint32(l.regIndex)}
		target, flag := l.fd, sys.RegisterOp(0)
		if l.regOnly {
			target, flag = l.regIndex, sys.RegisterUseRegisteredRing
		}
		_, err = sys.Register(target, sys.UnregisterRingFds|flag, &upd, 1)
	}
	if l.fd >= 0 {
		if e := sys.Close(l.fd); e != nil && err == nil {
			err = e
		}
	}
	return err
}

// release frees everything; it is the cleanup of a Ring never closed (and
// of the memory a closed one left in place), and undoes a failed New.
func (l *lifetime) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	_ = l.closeFd()
	for _, b := range l.regions {
		_ = sys.Munmap(b)
	}
	l.regions = nil
	l.closed.Store(true)
}

// Enable starts a ring created WithDisabled (IORING_REGISTER_ENABLE_RINGS),
// typically after registering restrictions.
func (r *Ring) Enable() error {
	err := r.register(sys.RegisterEnableRings)
	if err == nil {
		r.noteIssuer() // the kernel takes the enabler as the submitter
	}
	return err
}

func (r *Ring) register(op sys.RegisterOp) error {
	return r.UseTarget(func(fd int, flag sys.RegisterOp) error {
		_, err := sys.Register[byte](fd, op|flag, nil, 0)
		return r.registerError(err)
	})
}

// Resize changes the SQ and CQ sizes of a live ring, keeping pending SQEs
// and CQEs (IORING_REGISTER_RESIZE_RINGS, 6.13; the kernel allows it only
// on WithDeferTaskrun rings). cqEntries 0 means twice sqEntries.
func (r *Ring) Resize(sqEntries, cqEntries uint32) error {
	switch {
	case sqEntries == 0 || sqEntries > MaxEntries:
		return &OptionError{"sqEntries", "must be between 1 and 32768"}
	case cqEntries != 0 && (cqEntries < sqEntries || cqEntries > MaxCQEntries):
		return &OptionError{"cqEntries", "must be 0 or between sqEntries and 65536"}
	case r.flags&sys.SetupNoMmap != 0:
		return &OptionError{"Resize", "not supported on WithNoMmap rings"}
	}
	if !r.life.acquire() {
		return ErrClosed
	}
	defer r.life.releaseRef()
	r.flushSQ()
	p := sys.Params{SQEntries: sqEntries, CQEntries: cqEntries}
	if cqEntries != 0 {
		p.Flags = sys.SetupCQSize
	}
	fd, flag := r.RegisterTarget()
	if _, err := sys.Register(fd, sys.RegisterResizeRings|flag, &p, 1); err != nil {
		return r.registerError(err)
	}
	l := r.life
	l.mu.Lock()
	defer l.mu.Unlock()
	old := l.regions
	l.regions = nil
	r.params.SQEntries, r.params.CQEntries = p.SQEntries, p.CQEntries
	r.params.SQOff, r.params.CQOff = p.SQOff, p.CQOff
	if r.flags&sys.SetupNoSQArray == 0 && p.SQOff.Array == 0 {
		// 6.18 does not report the new SQ array offset: like rings_size() in
		// the kernel, it follows the CQEs, cache-line aligned.
		cqeSize := uint32(16) << r.cq.shift
		r.params.SQOff.Array = (p.CQOff.CQEs + p.CQEntries*cqeSize + 63) &^ 63
	}
	if err := r.mapRings(); err != nil {
		l.regions = append(l.regions, old...)
		return err
	}
	for _, b := range old {
		_ = sys.Munmap(b)
	}
	return nil
}

// UseTarget calls fn with the register target (see RegisterTarget) while
// holding a reference that Close waits for, so a registration racing Close
// never lands on a reused fd number; ErrClosed once closed.
func (r *Ring) UseTarget(fn func(fd int, flag sys.RegisterOp) error) error {
	if !r.life.acquire() {
		return ErrClosed
	}
	defer r.life.releaseRef()
	fd, flag := r.RegisterTarget()
	return fn(fd, flag)
}
