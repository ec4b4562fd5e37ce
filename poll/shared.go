//go:build linux

package poll

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/udata"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// Shared is a ring that goroutines share without handing their operations
// to another thread. A goroutine fills its SQE under the Shared's lock.
// When no other goroutine leads, it leads: it submits and waits for
// completions in one io_uring_enter, as pread(2) would. When one leads,
// it leaves its SQE to the leader (waking it through an eventfd if it
// sleeps in the kernel) and parks until the leader hands it its result,
// or the lead when the leader's own operation completed first. So a
// goroutine alone pays one enter and no thread hop, and many goroutines
// share one goroutine, the reaper, that submits their SQEs in batches and
// reaps their completions in batches. Having woken goroutines, the reaper
// yields its P to them before it submits again: the wakes put them on
// that P's run queue, and a reaper asleep in the kernel would hold the P
// in its system call, stranding them until Go's sysmon retakes it
// (≥ 20 µs). Yielding, they run at once, publish their next SQEs, and
// those go in with the reaper's next enter (measured with 16 goroutines
// reading: 12.3-13.1 of the 16 reads in the kernel at each enter, against
// 9.5-9.8 for a reaper that slept). While the kernel holds more than
// yieldInFlight operations it reaps again at once instead.
//
// Requests belong to the thread that submitted them (see package uring):
// the kernel cancels a request whose thread exits, or that waited for a
// thread's first io-wq worker whose start a signal spoiled. Such a request
// never ran: Do submits it again, through the reaper's thread (or the
// leader's), so that signals aimed at the caller's thread cannot spoil
// every try. Nothing else here cancels a request but
// Close, so -ECANCELED never reaches Do's caller.
//
// The ring is a plain one (no SINGLE_ISSUER, DEFER_TASKRUN, COOP_TASKRUN
// or SQPOLL): its requests' completion work runs on their submitters'
// threads, which the kernel interrupts for it (as Go's preemption signals
// do: a system call there restarts or returns EINTR, which Go retries), so
// neither a leader nor the reaper needs a thread of its own.
type Shared struct {
	r *uring.Ring

	mu       sync.Mutex
	ops      []*sharedOp // by slot index; the token carries the generation
	free     freeOps     // pushed without mu
	leading  bool        // a goroutine leads: it submits, waits in the kernel, reaps
	sleeping bool        // the leader waits in the kernel (its next enter submits what is published)
	woken    bool        // the leader was woken since it went to sleep
	pending  int         // operations submitted whose CQE was not delivered
	closed   bool
	broken   error         // io_uring_enter failed for good (a seccomp filter added later): every call fails with it
	handed   uint32        // SQEs handed out so far (wraps): with SQReady, tells which the kernel consumed
	limbo    []*sharedOp   // failed by a broken ring after their submission: pinned until the ring is closed
	ringGone bool          // Close closed the ring and released the limbo
	drained  chan struct{} // closed by the reap that delivers the last CQE after Close began

	// The leader's wake: an eventfd whose readability a POLL_ADD in the
	// ring reports. A goroutine that publishes an SQE while the leader
	// sleeps writes it, so that the leader submits: only the leader enters.
	// Writes go through its *os.File: the idle timer's callback can run
	// after Close, and must not write into a reused fd number.
	wake wakeFd

	// The reaper: a goroutine that takes the lead as soon as two
	// operations are in flight and keeps it while operations keep coming,
	// so that a busy Shared has one goroutine that submits and reaps in
	// batches instead of a lead that moves from goroutine to goroutine. It
	// ends after reaperIdle with nothing in flight; the next busy spell
	// starts another.
	reaping   bool        // the reaper leads
	yields    uint64      // times the reaper yielded to the goroutines it woke (tests read it)
	idleTimer *time.Timer // wakes the idle reaper to end
}

// yieldInFlight is the most operations the kernel may hold for the
// reaper to yield to the goroutines it woke before its next enter. Past
// it the kernel has work enough, and reaping promptly counts more than
// adding the woken goroutines' next SQEs to that enter: a yield puts the
// reaper at the back of the global run queue, behind every goroutine
// runnable on its P (measured with 128 goroutines reading O_DIRECT,
// alternating: 0.82-0.90x the task layer's reads/s and 4.3-5.6 µs of CPU
// a read, against 0.74-0.80x and 6.2-6.5 µs yielding always; 16 readers,
// below the bound, as before).
const yieldInFlight = 32

// reaperIdle is how long the reaper keeps the lead with nothing in
// flight, waiting in the kernel for the next SQE, before it ends and
// leaves the lead to the next lone goroutine.
const reaperIdle = time.Millisecond

// sharedOp is one operation in flight and the goroutine that waits for it.
type sharedOp struct {
	idx      uint32
	gen      atomic.Uint32 // odd: in flight; put changes it without mu
	nextFree atomic.Uint32 // idx+1 of the record below it in freeOps
	state    uint8
	res      int32
	flags    uint32
	seq      uint32        // s.handed when its SQE was handed out
	limbo    bool          // set once, before its wake: the kernel may still use its memory; never reused
	wake     chan struct{} // buffered: a delivery never blocks the leader
	pin      runtime.Pinner
}

const (
	opWaiting uint8 = iota // submitted, CQE not delivered
	opDone                 // its CQE was delivered
)

// maxResubmits bounds how often Do submits again an operation the kernel
// cancelled on its own: each time it never ran.
const maxResubmits = 16

// NewShared makes a Shared ring of entries SQEs (a CQ 4x that, at most
// uring.MaxCQEntries).
func NewShared(entries uint32) (*Shared, error) {
	if entries == 0 || entries > uring.MaxEntries {
		return nil, &OptionError{Option: "NewShared", Reason: fmt.Sprintf("entries = %d is outside 1..%d", entries, uring.MaxEntries)}
	}
	r, err := uring.New(entries, uring.WithCQSize(min(4*entries, uring.MaxCQEntries)))
	if err != nil {
		return nil, err
	}
	s := &Shared{r: r}
	if err := s.wake.open(); err != nil {
		_ = r.Close()
		return nil, err
	}
	s.idleTimer = time.AfterFunc(time.Hour, s.wakeLeader)
	s.idleTimer.Stop()
	return s, nil
}

// Ring returns the Shared's ring, for registrations only: do not submit or
// reap on it.
func (s *Shared) Ring() *uring.Ring { return s.r }

// Do submits the SQE prep fills and returns its result: the CQE's res and
// flags, or an error prep returned (the SQE is then dropped), or
// uring.ErrClosed. prep is called under the Shared's lock (and again when
// the kernel cancelled the request on its own); keep it short and do not
// call the Shared from it. keep is memory the SQE points at: it is pinned
// until the CQE. A negative res is the kernel's error for the request.
// A prep that panics leaves no SQE behind and the lock released: the
// panic reaches Do's caller and the Shared stays usable. When the ring
// breaks (io_uring_enter fails for good), Do returns that error at once,
// but an operation the kernel had taken may still run: keep stays pinned
// and referenced until Close closed the ring, and the caller must not
// reuse the memory before that.
func (s *Shared) Do(prep func(q *sys.SQE) error, keep []byte) (res int32, flags uint32, err error) {
	if prep == nil {
		return 0, 0, &uring.ArgError{Func: "Shared.Do", Arg: "prep", Reason: "is nil", Pkg: "poll"}
	}
	for attempt := 0; ; attempt++ {
		res, flags, err = s.do(prep, keep, attempt > 0)
		if err != nil || res != -int32(syscall.ECANCELED) || attempt == maxResubmits {
			return res, flags, err
		}
		// Cancelled without a cancel: never ran (see the type's doc).
		if err := s.usable(); err != nil {
			return 0, 0, err
		}
	}
}

// do submits one operation and waits for it. A goroutine alone leads,
// unless handOff: an operation the kernel cancelled because a signal kept
// spoiling this thread's first io-wq worker goes to the reaper's thread,
// or the leader's, whose worker starts apart from this thread's signals.
func (s *Shared) do(prep func(q *sys.SQE) error, keep []byte, handOff bool) (int32, uint32, error) {
	s.mu.Lock()
	if err := s.unusable(); err != nil {
		s.mu.Unlock()
		return 0, 0, err
	}
	q, err := s.sqe()
	if err != nil {
		s.mu.Unlock()
		return 0, 0, err
	}
	if err := s.callPrep(prep, q); err != nil {
		sqe.Nop(q) // handed out: let it pass
		q.UserData = udata.Ignore
		s.mu.Unlock()
		return 0, 0, err
	}
	op := s.take()
	q.UserData = op.token()
	op.seq = s.handed
	if len(keep) > 0 {
		op.pin.Pin(&keep[0])
	}
	s.pending++
	if !s.leading && handOff {
		s.leading = true
		s.startReaper()
		s.mu.Unlock()
		<-op.wake
	} else if !s.leading {
		s.leading = true
		s.lead(op) // alone: submit and wait in one enter
	} else {
		// The leader submits it: before it sleeps again, or now, woken.
		wake := s.sleeping && !s.woken
		s.woken = s.woken || wake
		s.mu.Unlock()
		if wake {
			s.wakeLeader()
		}
		<-op.wake
	}
	res, flags := op.res, op.flags
	if op.limbo {
		return res, flags, nil // pinned and kept until Close closed the ring
	}
	op.pin.Unpin()
	s.put(op)
	return res, flags, nil
}

// callPrep runs prep on q (mu held). A prep that panics (or calls
// runtime.Goexit) must not leave a half-filled SQE in the SQ, which the
// next enter would submit, nor the lock held: the SQE becomes an ignored
// NOP, mu is released, and the panic goes on, unrecovered and with its
// own stack, to Do's caller. The Shared stays usable.
func (s *Shared) callPrep(prep func(q *sys.SQE) error, q *sys.SQE) error {
	ok := false
	defer func() {
		if !ok {
			sqe.Nop(q)
			q.UserData = udata.Ignore
			s.mu.Unlock()
		}
	}()
	err := prep(q)
	ok = true
	return err
}

// DoBatch submits len(res) SQEs, prep(i, q) filling the i-th, and waits
// for all of them: res[i] is the i-th CQE's res (a negative errno for a
// request that failed). keep(i) is memory the i-th SQE points at, pinned
// until its CQE (keep may be nil). The SQEs go to the reaper's thread,
// which submits them in one enter with whatever else is published. When
// prep fails for the i-th, the SQEs before it still run and are waited
// for; the rest are not submitted (their res is 0) and the error is
// returned. Requests the kernel cancelled on its own are submitted again,
// one by one.
func (s *Shared) DoBatch(res []int32, prep func(i int, q *sys.SQE) error, keep func(i int) []byte) error {
	if prep == nil && len(res) > 0 {
		return &uring.ArgError{Func: "Shared.DoBatch", Arg: "prep", Reason: "is nil", Pkg: "poll"}
	}
	n := len(res)
	if n == 0 {
		return nil
	}
	ops := make([]*sharedOp, 0, n)
	s.mu.Lock()
	if err := s.unusable(); err != nil {
		s.mu.Unlock()
		return err
	}
	var perr error
	var panicked any // what a prep panicked with: raised once the SQEs before it are done
	for i := 0; i < n; i++ {
		q, err := s.sqe()
		if err != nil {
			perr = err
			break
		}
		err, p := s.callBatchPrep(prep, i, q)
		if p != nil {
			panicked, perr = p, errPrepPanicked
		}
		if err != nil || p != nil {
			sqe.Nop(q) // handed out: let it pass
			q.UserData = udata.Ignore
			if err != nil {
				perr = err
			}
			break
		}
		op := s.take()
		q.UserData = op.token()
		op.seq = s.handed
		if keep != nil {
			if b := keep(i); len(b) > 0 {
				op.pin.Pin(&b[0])
			}
		}
		s.pending++
		ops = append(ops, op)
	}
	if !s.leading {
		s.leading = true
		s.startReaper() // a batch is never alone: the reaper submits it
	} else if s.sleeping && !s.woken {
		s.woken = true
		s.mu.Unlock()
		s.wakeLeader()
		s.mu.Lock()
	}
	s.mu.Unlock()
	for i, op := range ops {
		<-op.wake
		res[i] = op.res
		if !op.limbo {
			op.pin.Unpin()
		}
	}
	for _, op := range ops {
		if !op.limbo {
			s.put(op)
		}
	}
	for i := range ops {
		for attempt := 0; res[i] == -int32(syscall.ECANCELED) && attempt < maxResubmits; attempt++ {
			// Cancelled without a cancel: never ran (see the type's doc).
			var kept []byte
			if keep != nil {
				kept = keep(i)
			}
			r, _, err := s.do(func(q *sys.SQE) error { return prep(i, q) }, kept, true)
			if err != nil {
				return err
			}
			res[i] = r
		}
	}
	for i := len(ops); i < n; i++ {
		res[i] = 0
	}
	if panicked != nil {
		panic(panicked)
	}
	return perr
}

var errPrepPanicked = errors.New("poll: prep panicked")

// callBatchPrep runs DoBatch's prep for the i-th SQE (mu held) and
// returns what it panicked with, if it did: DoBatch then stops as after an
// error, waits for the SQEs before it, and panics with that value. A prep
// that calls runtime.Goexit cannot be stopped: its SQE becomes an ignored
// NOP and mu is released (the SQEs before it still run; nobody waits for
// them).
func (s *Shared) callBatchPrep(prep func(i int, q *sys.SQE) error, i int, q *sys.SQE) (err error, p any) {
	ok := false
	defer func() {
		if ok {
			return
		}
		if p = recover(); p == nil {
			sqe.Nop(q)
			q.UserData = udata.Ignore
			s.mu.Unlock()
		}
	}()
	err = prep(i, q)
	ok = true
	return err, nil
}

// sqe hands out an SQE, submitting what is published to make room (mu
// held).
func (s *Shared) sqe() (*sys.SQE, error) {
	for {
		q, err := s.r.GetSQE()
		if err == nil {
			s.handed++
		}
		if err != uring.ErrSQFull {
			if errors.Is(err, uring.ErrClosed) {
				err = uring.ErrClosed
			}
			return q, err
		}
		if _, err := s.r.EnterWait(s.r.Publish(), 0); err != nil && !errors.Is(err, syscall.EBUSY) && !errors.Is(err, syscall.EAGAIN) {
			return nil, err
		}
	}
}

// lead submits what is published, waits in the kernel and delivers what
// completes, until my operation is done; then it hands the lead to a
// goroutine still waiting, if any. Called with mu held; returns without.
func (s *Shared) lead(my *sharedOp) {
	var done wakeBatch
	for {
		s.arm()
		n := s.r.Publish()
		s.sleeping, s.woken = true, false
		s.mu.Unlock()
		done.wake()
		_, err := s.r.EnterWait(n, 1)
		s.mu.Lock()
		s.sleeping = false
		s.reap(my, &done)
		s.entered(err, my)
		if my.state == opDone {
			if s.pending > 0 {
				s.startReaper() // others wait: the reaper leads now
			} else {
				s.leading = false
			}
			s.mu.Unlock()
			done.wake()
			return
		}
		if s.pending > 1 {
			// Not alone any more: the reaper takes over, and this goroutine
			// waits for its CQE as the others do.
			s.startReaper()
			s.mu.Unlock()
			done.wake()
			<-my.wake
			return
		}
	}
}

// startReaper hands the lead to the reaper (mu held): it submits what is
// published at once.
func (s *Shared) startReaper() {
	if !s.reaping {
		s.reaping = true
		go s.reaper()
	}
}

// reaper leads while there is work: it submits what goroutines publish
// (they wake it through the eventfd while it sleeps), waits in the kernel
// and delivers completions in batches. After reaperIdle with nothing in
// flight (a timer wakes it), or once Close began and nothing is in
// flight, it gives the lead up and ends.
func (s *Shared) reaper() {
	var done wakeBatch
	s.mu.Lock()
	idleSince := time.Time{}
	for !((s.closed || s.broken != nil) && s.pending == 0) {
		if s.pending > 0 {
			idleSince = time.Time{}
		} else if idleSince.IsZero() {
			idleSince = time.Now()
			s.idleTimer.Reset(reaperIdle)
		} else if time.Since(idleSince) >= reaperIdle {
			break
		}
		if done.n > 0 && s.pending <= yieldInFlight {
			// The goroutines the last reap completed run first, on this
			// P, and publish their next SQEs for the enter below (see
			// the type's doc).
			s.yields++
			s.mu.Unlock()
			done.wake()
			runtime.Gosched()
			s.mu.Lock()
		}
		s.arm()
		n := s.r.Publish()
		s.sleeping, s.woken = true, false
		s.mu.Unlock()
		done.wake()
		_, err := s.r.EnterWait(n, 1)
		s.mu.Lock()
		s.sleeping = false
		s.reap(nil, &done)
		s.entered(err, nil)
	}
	s.idleTimer.Stop()
	s.reaping, s.leading = false, false
	s.mu.Unlock()
	done.wake()
}

// arm puts the poll of the wake eventfd in the SQ when it is not in the
// ring (mu held); a full SQ leaves it for the next round.
func (s *Shared) arm() {
	if s.wake.armed || s.closed {
		return
	}
	q, err := s.r.GetSQE()
	if err != nil {
		return
	}
	s.handed++
	if sqe.PollAdd(q, s.wake.fd, unix.POLLIN) != nil {
		sqe.Nop(q)
		q.UserData = udata.Ignore
		return
	}
	q.UserData = udata.WakePoll
	s.wake.armed = true
}

// wakeLeader ends the leader's wait in the kernel.
func (s *Shared) wakeLeader() {
	s.wake.signal() // EAGAIN: the counter is up already; ErrClosed: the Shared is closed
}

// reap delivers every ready CQE (mu held): the result goes into its
// operation, whose goroutine done wakes once mu is released (the
// leader's own is not woken).
func (s *Shared) reap(my *sharedOp, done *wakeBatch) {
	for cs := s.r.PeekBatch(); len(cs) > 0; cs = s.r.PeekBatch() {
		for i := range cs {
			c := &cs[i]
			if c.UserData == udata.WakePoll {
				s.wake.drain() // level-triggered: drained before the poll is armed again
				s.wake.armed = false
				continue
			}
			op := s.lookup(c.UserData)
			if op == nil {
				continue // reserved (a dropped SQE) or stale
			}
			op.res, op.flags, op.state = c.Res, uint32(c.Flags), opDone
			s.pending--
			if op != my {
				done.add(op)
			}
		}
		s.r.Advance(uint32(len(cs)))
	}
	if s.closed && s.pending == 0 && s.drained != nil {
		close(s.drained)
		s.drained = nil
	}
}

// wakeBatch holds the goroutines a reap completed until the reaper or
// leader released mu: a wake may call into the scheduler (to start a
// thread for an idle P), which would hold the lock the woken goroutines
// queue on first to take their next SQE. Past its size they are woken at
// once.
type wakeBatch struct {
	n   int
	ops [64]*sharedOp
}

func (b *wakeBatch) add(op *sharedOp) {
	if b.n == len(b.ops) {
		op.wake <- struct{}{}
		return
	}
	b.ops[b.n] = op
	b.n++
}

// wake wakes the goroutines held (mu not held: each op is its goroutine's
// until then, and done).
func (b *wakeBatch) wake() {
	for i := range b.n {
		b.ops[i].wake <- struct{}{}
		b.ops[i] = nil
	}
	b.n = 0
}

// entered handles io_uring_enter's error (mu held): after Close, or an
// error that no retry cures (EPERM from a seccomp filter installed after
// the ring was made, EBADF, EFAULT), nothing more will complete, so every
// operation waiting fails. EINTR was retried; EAGAIN and EBUSY (no memory
// or a full CQ for now) are tried again by the next enter.
func (s *Shared) entered(err error, my *sharedOp) {
	switch {
	case err == nil || errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EBUSY) || errors.Is(err, syscall.ETIME):
		return
	case !errors.Is(err, uring.ErrClosed) && s.broken == nil:
		s.broken = fmt.Errorf("poll: Shared: %w", err)
	}
	s.failAll(my)
}

// unusable is why no new operation may start (mu held), or nil.
func (s *Shared) unusable() error {
	if s.closed {
		return uring.ErrClosed
	}
	return s.broken
}

// usable is unusable taking the lock.
func (s *Shared) usable() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.unusable()
}

// failAll completes every operation still waiting with ErrClosed's errno
// (mu held): after the ring was closed under them, or broke, their CQEs
// never come. An operation the kernel consumed may still run, though (a
// read waiting for data), and use its memory: it goes to the limbo, which
// keeps it pinned and referenced (its record never reused) until Close
// closed the ring; its caller gets its error at once. One the kernel never
// consumed (its SQE still in the SQ: after a permanent break nothing
// enters to submit it) is released as usual.
func (s *Shared) failAll(my *sharedOp) {
	var unsubmitted uint32
	if !s.ringGone {
		unsubmitted = s.r.SQReady() // the last ones handed out
	}
	for _, op := range s.ops {
		if op != nil && op.gen.Load()&1 != 0 && op.state != opDone {
			op.res, op.state = -int32(syscall.ECANCELED), opDone
			if !s.ringGone && s.handed-op.seq >= unsubmitted {
				op.limbo = true
				s.limbo = append(s.limbo, op)
			}
			s.pending--
			if op != my {
				op.wake <- struct{}{}
			}
		}
	}
}

// take returns a free operation record, in flight (odd generation) (mu
// held).
func (s *Shared) take() *sharedOp {
	op := s.free.pop(s.ops)
	if op == nil {
		op = &sharedOp{idx: uint32(len(s.ops)), wake: make(chan struct{}, 1)}
		s.ops = append(s.ops, op)
	}
	op.gen.Store((op.gen.Load() + 1) & slotGenMask)
	op.state, op.res, op.flags = opWaiting, 0, 0
	return op
}

// put frees op, with or without mu: its generation turns even. Its
// goroutine has read its result.
func (s *Shared) put(op *sharedOp) {
	op.gen.Store((op.gen.Load() + 1) & slotGenMask)
	s.free.push(op)
}

func (op *sharedOp) token() uint64 { return uint64(token(op.idx, op.gen.Load())) }

// lookup is the operation a CQE's user_data names, or nil (mu held).
func (s *Shared) lookup(ud uint64) *sharedOp {
	idx := uint32(ud)
	if ud&internalBit != 0 || idx >= uint32(len(s.ops)) {
		return nil
	}
	op := s.ops[idx]
	if g := uint32(ud >> genShift); op.gen.Load() != g || g&1 == 0 || op.state == opDone {
		return nil
	}
	return op
}

// Close cancels what is in flight, waits for those CQEs (the kernel may
// use their memory until then) and closes the ring. Do returns
// uring.ErrClosed afterwards. Safe to call more than once.
func (s *Shared) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	var drained chan struct{}
	if s.pending > 0 {
		drained = make(chan struct{})
		s.drained = drained
		// One cancel per operation, by its user_data: every kernel has it
		// (IORING_ASYNC_CANCEL_ANY is 5.19's).
		for _, op := range s.ops {
			if op == nil || op.gen.Load()&1 == 0 || op.state == opDone {
				continue
			}
			q, err := s.sqe()
			if err != nil {
				break // the ring is gone or broken: failAll ends the waits
			}
			_ = sqe.Cancel(q, op.token(), 0)
			q.UserData = udata.Cancel
		}
		if _, err := s.r.EnterWait(s.r.Publish(), 0); err != nil && !errors.Is(err, syscall.EBUSY) && !errors.Is(err, syscall.EAGAIN) {
			s.failAll(nil)
			close(drained)
			s.drained = nil
		}
	}
	s.mu.Unlock()
	if drained != nil {
		<-drained // the goroutines waiting keep reaping until the last CQE
	}
	// Closing the ring wakes a reaper idling in the kernel (it ends) and
	// cancels the wake poll, which holds no memory.
	err := s.r.Close()
	s.mu.Lock() // a reaper still ending drains under mu
	s.wake.close()
	s.ringGone = true
	// The kernel is done with the ring: what a broken ring left running
	// is released. (Their callers returned; only Close touches them now.)
	for i, op := range s.limbo {
		op.pin.Unpin()
		s.limbo[i] = nil
	}
	s.limbo = nil
	s.mu.Unlock()
	return err
}
