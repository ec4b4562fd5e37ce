package uring

import (
	"errors"
	"runtime"
	"syscall"
	"time"

	"github.com/pure-uring/uring/internal/feature"
	"github.com/pure-uring/uring/internal/udata"
	"github.com/pure-uring/uring/sys"
)

// The Ring's lifetime is a reference count, as in Go's internal/poll: every
// syscall on the ring holds a reference; Close sets closedBit, after which
// no reference is handed out, and the release that drops the count to zero
// tears the ring down (closes the fd, replaces the mappings) and wakes
// Close. So the fd number is never reused under a call in flight, and no
// call touches a torn-down ring.
const (
	closedBit = 1 << 62 // Close began
	doneBit   = 1 << 61 // the ring is torn down
)

// wakeUserData tags the CQEs Close posts to wake a blocked waiter.
const wakeUserData = udata.RingWake

// maxWakeCQEs bounds the CQEs one wake posts for a wait for many; a wait
// for more than that is interrupted by a signal instead.
const maxWakeCQEs = 256

// acquire takes a reference for one call on the ring; false once Close
// has begun.
func (l *lifetime) acquire() bool {
	if l.refs.Add(1)&closedBit != 0 {
		l.releaseRef() // may be the last one: a failed acquire releases too
		return false
	}
	return true
}

// releaseRef drops a reference; the last one after Close tears down.
func (l *lifetime) releaseRef() {
	if l.refs.Add(-1) == closedBit {
		l.teardown()
	}
}

// teardown releases the ring once (of racing last releases, the one that
// sets doneBit) and wakes Close.
func (l *lifetime) teardown() {
	if !l.refs.CompareAndSwap(closedBit, closedBit|doneBit) {
		return // another release got here first, or a call is in again
	}
	l.mu.Lock()
	l.closeErr = l.shutdown()
	l.mu.Unlock()
	close(l.done)
}

// beginWait takes a reference for a call that may sleep in the kernel
// (a wait in io_uring_enter, a register call that quiesces the ring) and
// records the calling thread, locked to the goroutine until endWait, so
// that Close can interrupt it. The thread is recorded before the reference
// is taken: Close, which reads the set after setting closedBit, sees every
// thread that holds one.
func (l *lifetime) beginWait() (int32, bool) {
	runtime.LockOSThread()
	tid := int32(sys.Gettid())
	l.wmu.Lock()
	l.waiters = append(l.waiters, tid)
	l.wmu.Unlock()
	if !l.acquire() {
		l.dropWaiter(tid)
		return 0, false
	}
	return tid, true
}

// waitTicket tells endEnterWait how beginEnterWait took its reference: a
// recorded thread id (> 0), or one of the cheaper ways below.
type waitTicket int32

const (
	ticketRef waitTicket = -1 // the reference alone: Close ends the wait with CQEs
	ticketReg waitTicket = -2 // the registering thread, counted in regWaiters
)

// beginEnterWait takes a reference for an io_uring_enter that may sleep
// until n CQEs are there, in the cheapest way Close can still end it:
//   - through a registered ring index the call runs on the thread that
//     registered it (enterOnThread refused it, ErrNotIssuer, anywhere
//     else, and keeps it there), so that thread (known since New) is only
//     counted;
//   - where Close can post CQEs (MSG_RING, 5.18), the reference alone:
//     Close posts n CQEs, which end the wait, and a wait that enters after
//     them returns at once;
//   - else the thread is looked up and recorded for a signal (beginWait).
//
// The first two cost no gettid(2), which in a VM costs more than the wait
// for a NOP.
func (l *lifetime) beginEnterWait(n uint32) (waitTicket, bool) {
	// Before the reference: Close reads it after it set closedBit.
	for cur := l.waitNr.Load(); cur < n && !l.waitNr.CompareAndSwap(cur, n); cur = l.waitNr.Load() {
	}
	switch {
	case l.regIndex >= 0:
		l.regWaiters.Add(1)
		if !l.acquire() {
			l.regWaiters.Add(-1)
			return 0, false
		}
		return ticketReg, true
	case l.cqeWake && !l.signalOnly && n <= maxWakeCQEs:
		if !l.acquire() {
			return 0, false
		}
		return ticketRef, true
	}
	tid, ok := l.beginWait()
	return waitTicket(tid), ok
}

// endEnterWait undoes beginEnterWait after the call returned.
func (l *lifetime) endEnterWait(t waitTicket) {
	switch t {
	case ticketReg:
		l.regWaiters.Add(-1)
		l.releaseRef()
	case ticketRef:
		l.releaseRef()
	default:
		l.endWait(int32(t))
	}
}

// endWait undoes beginWait after the call returned.
func (l *lifetime) endWait(tid int32) {
	l.dropWaiter(tid)
	l.releaseRef()
}

func (l *lifetime) dropWaiter(tid int32) {
	l.wmu.Lock()
	for i, w := range l.waiters {
		if w == tid {
			last := len(l.waiters) - 1
			l.waiters[i] = l.waiters[last]
			l.waiters = l.waiters[:last]
			break
		}
	}
	l.wmu.Unlock()
	runtime.UnlockOSThread()
}

// others reports whether calls other than Close's own are in flight.
func (l *lifetime) others() bool { return l.refs.Load()&^(closedBit|doneBit) > 1 }

// holdForWake takes a reference after Close began, for Close's later
// wakes: the fd stays ours while it is held. False once torn down.
func (l *lifetime) holdForWake() bool {
	if l.refs.Add(1)&doneBit != 0 {
		l.refs.Add(-1)
		return false
	}
	return true
}

// signalWaiters interrupts every recorded waiter with SIGURG, the signal
// the Go runtime sends itself to preempt goroutines and ignores otherwise:
// io_uring_enter returns EINTR, and the wait loop then sees the ring
// closed. A thread that left in the meantime gets a harmless SIGURG.
func (l *lifetime) signalWaiters() {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	for _, tid := range l.waiters {
		if sys.Tgkill(int(tid), sys.SigPreempt) == nil {
			l.signals.Add(1)
		}
	}
	if l.regWaiters.Load() > 0 && sys.Tgkill(l.tid, sys.SigPreempt) == nil {
		l.signals.Add(1)
	}
}

// Close closes the ring. It may race any other call on the Ring: calls
// blocked in the kernel are woken and return ErrClosed, later calls return
// ErrClosed, and Close returns once every call in flight has left the
// kernel and the ring is released — the fd closed, and the ring memory a
// racing call may still read replaced by zeroed memory, unmapped when the
// Ring is garbage. A wait in io_uring_enter on another thread is woken by a
// CQE posted from outside the ring (IORING_REGISTER_SEND_MSG_RING, 6.13;
// else IORING_OP_MSG_RING from a short-lived ring, 5.18) or, where neither
// exists or reaches it, by interrupting its thread. Requests still in
// flight are cancelled by the kernel; memory they use must outlive their
// CQEs (the layers above wait for them before closing). A second Close
// returns ErrClosed.
//
// Registrations need no unregistering first: the ring's teardown releases
// its registered files, buffers, buffer rings, regions and eventfd in the
// kernel, and the Ring keeps no record of them. What package reg mapped
// for them is reg's to unmap, before or after Close (Buffers.Unregister,
// BufPool.Close, Region.Free, ...); skipped, that memory stays mapped.
//
// Close must not be called while the caller itself is inside a call on the
// Ring (such as UseTarget's fn): it would wait for itself.
func (r *Ring) Close() error {
	l := r.life
	// Close's own reference keeps the fd open (and its number ours) for
	// the unregistration and the first wake below.
	if !l.acquire() {
		return ErrClosed
	}
	if l.refs.Or(closedBit)&closedBit != 0 {
		l.releaseRef()
		return ErrClosed // a racing Close won
	}
	l.closed.Store(true)
	r.closed.Store(true)
	l.mu.Lock()
	err := l.dropRegistration()
	l.mu.Unlock()
	if l.others() {
		r.wakeWaiters(true)
	}
	l.releaseRef()
	r.awaitTeardown()
	if err == nil {
		err = l.closeErr
	}
	return err
}

// awaitTeardown waits for the last reference to go. A signal is
// edge-triggered (a waiter between its closed check and the syscall misses
// it) and wake CQEs can be reaped by another thread, so while calls remain
// they are woken again, 1 ms after the first wake and then at doubling
// intervals up to 50 ms. It never gives up: the fd is closed only once no
// call uses it.
func (r *Ring) awaitTeardown() {
	l := r.life
	select {
	case <-l.done:
		return
	default:
	}
	delay := time.Millisecond
	t := time.NewTimer(delay)
	defer t.Stop()
	for {
		select {
		case <-l.done:
			return
		case <-t.C:
		}
		l.rechecks.Add(1)
		if l.holdForWake() {
			r.wakeWaiters(false)
			l.releaseRef()
		}
		delay = min(2*delay, 50*time.Millisecond)
		t.Reset(delay)
	}
}

// wakeWaiters wakes the calls blocked in the ring (the caller holds a
// reference): CQEs posted from outside, which a waiter that enters later
// also sees, else a signal to each recorded waiting thread. Close's first
// wake (first) signals only where no CQE went out; its rechecks do both,
// for register calls that wait in the kernel, which no CQE ends.
func (r *Ring) wakeWaiters(first bool) {
	l := r.life
	// A wait for n CQEs needs n of them to return.
	n := min(max(1, l.waitNr.Load()), maxWakeCQEs)
	if l.cqeWake && !l.signalOnly && (r.postWakes(wakeUserData, n) == nil || r.msgRingWakes(n)) {
		if first {
			l.cqeWakes.Add(1)
			return
		}
	}
	l.signalWaiters()
}

// PostWake posts a CQE with user_data userData and res 0 into r from
// outside it, so that a thread blocked in io_uring_enter on r returns:
// IORING_REGISTER_SEND_MSG_RING with no source ring (Linux 6.13; see
// io_uring_register(2) and io_uring_prep_msg_ring(3)). It holds a reference
// that Close waits for, so the CQE never lands in another ring that
// reuses r's fd number after Close. ErrClosed once Close began; an
// *UnsupportedError (errors.Is ErrUnsupported) on kernels without the
// ring-less form and for a WithRegisteredFdOnly ring, which has no fd to
// name: wake such rings another way. Any goroutine may call it.
func (r *Ring) PostWake(userData uint64) error { return r.PostCQE(userData, 0, 0, 0) }

// PostCQE is PostWake with the CQE's res, and with msgFlags
// sys.MsgRingFlagsPass its flags cqeFlags: the guarded form of
// reg.SendMsgRing. Every CQE the library posts into a ring from outside
// goes through here.
func (r *Ring) PostCQE(userData uint64, res int32, msgFlags, cqeFlags uint32) error {
	if msgFlags&^sys.MsgRingFlagsPass != 0 {
		return argError("PostCQE", "msgFlags", "has bits other than MsgRingFlagsPass")
	}
	if !r.life.acquire() {
		return ErrClosed
	}
	err := r.postCQEs(userData, res, msgFlags, cqeFlags, 1)
	r.life.releaseRef()
	return err
}

// postWakes posts n wake CQEs tagged ud. The caller holds a reference.
func (r *Ring) postWakes(ud uint64, n uint32) error { return r.postCQEs(ud, 0, 0, 0, n) }

// postCQEs is the one ring-less post into r: n times a MSG_RING of
// userData and res (with msgFlags MsgRingFlagsPass, CQE flags cqeFlags).
// The caller holds a reference.
func (r *Ring) postCQEs(userData uint64, res int32, msgFlags, cqeFlags uint32, n uint32) error {
	fd, ok := r.life.fdUse()
	if ok {
		defer r.life.fdDone()
	}
	if fd < 0 {
		return feature.Unsupported("a ring-less wake of a ring without an fd (WithRegisteredFdOnly, CloseRingFd)", "",
			"the ring has no fd for IORING_REGISTER_SEND_MSG_RING to name", nil)
	}
	var msg sys.SQE
	if err := msgRing(&msg, fd, userData, res, msgFlags, cqeFlags); err != nil {
		return err
	}
	for i := uint32(0); i < n; i++ {
		if err := sys.SendMsgRing(fd, &msg); err != nil {
			// Before 6.13 fd -1 is a bad fd, or the opcode an unknown one
			// (EBADF or EINVAL, by kernel): the probe tells.
			if ue := feature.AsUnsupported(feature.RegisterOp(sys.RegisterSendMsgRing)); ue != nil {
				return ue
			}
			return err
		}
	}
	return nil
}

// msgRingWakes posts n wake CQEs into r with IORING_OP_MSG_RING (5.18)
// from a ring made for it and closed at once (a process-wide helper ring
// would never be released). The caller holds a reference. It reports
// whether the CQEs went out.
func (r *Ring) msgRingWakes(n uint32) bool {
	fd, ok := r.life.fdUse()
	if ok {
		defer r.life.fdDone()
	}
	if fd < 0 || feature.Op(sys.OpMsgRing) != nil {
		return false
	}
	// One SQE and two CQ slots per wake: the MSG_RINGs' own CQEs never
	// overflow tmp, and nothing waits for them.
	tmp, err := New(n)
	if err != nil {
		return false
	}
	defer tmp.Close()
	for i := uint32(0); i < n; i++ {
		s, err := tmp.GetSQE()
		if err != nil {
			return false
		}
		if err := msgRing(s, fd, wakeUserData, 0, 0, 0); err != nil {
			return false
		}
	}
	// The MSG_RINGs run during the submit (or, for a DEFER_TASKRUN target,
	// as task work of its submitter, which holds their own references).
	submitted, err := tmp.Submit()
	return err == nil && submitted > 0
}

// canPostCQEs reports whether this kernel lets Close post a CQE into a
// ring from outside it: ring-less (6.13) or from a short-lived ring (5.18).
func canPostCQEs() bool {
	return feature.RegisterOp(sys.RegisterSendMsgRing) == nil || feature.Op(sys.OpMsgRing) == nil
}

// shutdown releases the ring (called once, with mu held, after every
// call in flight returned). The mappings are replaced by zeroed anonymous
// memory instead of being unmapped, so a call racing Close reads zeros
// rather than faulting; the cleanup unmaps them.
func (l *lifetime) shutdown() error {
	err := l.closeFd()
	for _, b := range l.regions {
		if e := sys.MmapFixedAnon(b); e != nil && err == nil {
			err = e
		}
	}
	return err
}

// dropRegistration unregisters the ring's registered fd (mu held, the fd
// still open). Registered ring fds belong to the thread that registered
// them, so only that thread can; on another, the entry stays until that
// thread exits.
func (l *lifetime) dropRegistration() error {
	if l.regIndex < 0 || l.regDropped || l.fdClosed || sys.Gettid() != l.tid {
		return nil
	}
	l.regDropped = true
	upd := sys.RsrcUpdate{Offset: uint32(l.regIndex)}
	target, flag := l.fd, sys.RegisterOp(0)
	if l.regOnly || l.fdGone.Load() {
		target, flag = l.regIndex, sys.RegisterUseRegisteredRing
	}
	_, err := sys.Register(target, sys.UnregisterRingFds|flag, &upd, 1)
	return err
}

// closeFd drops the ring's registration (on its own thread) and its fd.
func (l *lifetime) closeFd() error {
	if l.fdClosed {
		return nil
	}
	err := l.dropRegistration()
	l.fdClosed = true
	if l.fd >= 0 && !l.fdGone.Load() {
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

// registerOpError explains err from io_uring_register(2) op: an EINVAL
// from a kernel without op is op's *UnsupportedError, naming the release
// that added it (still errors.Is EINVAL).
func registerOpError(op sys.RegisterOp, err error) error {
	if errors.Is(err, syscall.EINVAL) {
		if ue := feature.AsUnsupported(feature.RegisterOp(op)); ue != nil {
			e := *ue
			e.Err = err // the call's own answer, not the probe's
			return &e
		}
	}
	return err
}

// Resize changes the SQ and CQ sizes of a live ring, keeping pending SQEs
// and CQEs (IORING_REGISTER_RESIZE_RINGS, 6.13; the kernel allows it only
// on WithDeferTaskrun rings). cqEntries 0 means twice sqEntries. On older
// kernels it returns an *UnsupportedError naming 6.13.
func (r *Ring) Resize(sqEntries, cqEntries uint32) error {
	switch {
	case sqEntries == 0 || sqEntries > MaxEntries:
		return argError("Resize", "sqEntries", "must be between 1 and 32768")
	case cqEntries != 0 && (cqEntries < sqEntries || cqEntries > MaxCQEntries):
		return argError("Resize", "cqEntries", "must be 0 or between sqEntries and 65536")
	case r.flags&sys.SetupNoMmap != 0:
		return &OptionError{Option: "Resize", Reason: "not supported on WithNoMmap rings"}
	}
	if !r.life.acquire() {
		return ErrClosed
	}
	defer r.life.releaseRef()
	// The new rings are mapped through the fd.
	rfd, ok := r.life.fdUse()
	if !ok {
		return &OptionError{Option: "Resize", Reason: "the ring fd was closed (CloseRingFd): the resized rings could not be mapped"}
	}
	defer r.life.fdDone()
	r.flushSQ()
	p := sys.Params{SQEntries: sqEntries, CQEntries: cqEntries}
	if cqEntries != 0 {
		p.Flags = sys.SetupCQSize
	}
	if _, err := sys.Register(rfd, sys.RegisterResizeRings, &p, 1); err != nil {
		return registerOpError(sys.RegisterResizeRings, r.registerError(err))
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
	if l.dontFork {
		return l.markDontFork()
	}
	return nil
}

// UseTarget calls fn with the register target (see RegisterTarget) while
// holding a reference that Close waits for, so a registration racing Close
// never lands on a reused fd number; ErrClosed once closed. The target is
// the fd where the ring has one, from any thread; the registered index
// (WithRegisteredFdOnly, after CloseRingFd) only on the thread that
// registered it, with fn run there: on any other, where the index names
// another ring or none, UseTarget returns ErrNotIssuer without calling
// fn. A register call that waits in the kernel (one that quiesces the
// ring: most of them before 5.13, unregistering files or buffers before
// 6.13) is interrupted by Close and returns ErrClosed; interrupted by any
// other signal (Go's own preemption signal can land there), it changed
// nothing and fn runs again.
func (r *Ring) UseTarget(fn func(fd int, flag sys.RegisterOp) error) error {
	tid, ok := r.life.beginWait()
	if !ok {
		return ErrClosed
	}
	// The real fd, kept open for the call, or the registered index, which
	// names the ring on the registering thread only (issuer.go).
	fd, flag := r.life.regIndex, sys.RegisterUseRegisteredRing
	used := false
	if !r.life.regOnly {
		if f, ok := r.life.fdUse(); ok {
			fd, flag, used = f, 0, true
		}
	}
	if !used && int(tid) != r.life.tid {
		r.life.endWait(tid)
		return ErrNotIssuer
	}
	err := fn(fd, flag)
	for err != nil && errors.Is(err, syscall.EINTR) && !r.life.closed.Load() {
		err = fn(fd, flag)
	}
	if used {
		r.life.fdDone()
	}
	r.life.endWait(tid)
	if err != nil && errors.Is(err, syscall.EINTR) {
		return ErrClosed
	}
	return err
}
