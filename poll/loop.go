//go:build linux

package poll

import (
	"errors"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sys"
)

const einval = syscall.EINVAL

// Loop is a completion loop that owns one Ring on one locked OS thread.
// Its exported methods are safe for concurrent use except Prep, Cancel,
// InFlight and Ring, which belong to the loop thread (handlers and Run).
type Loop struct {
	cfg      Config
	ring     *uring.Ring
	tid      int
	iopoll   bool
	sqpoll   bool
	strategy Strategy

	// Loop-thread state.
	slots      []slot
	freeHead   uint32 // first free slot, or noSlot
	cqes       []sys.CQE
	inflight   int
	local      []msg // messages taken from the queue
	backlog    []msg // taken, waiting for SQ space
	unflushed  int   // SQEs prepared since the last Submit (SQPOLL)
	spins      int
	spinStart  time.Time
	st         Stats
	closing    bool
	cancelAt   time.Time
	cancelEach bool
	closeStart time.Time
	fatal      error
	batchWait  bool // WaitBatch > 1 with IORING_FEAT_MIN_TIMEOUT: waitMin
	plainWait  bool // Block's submit-and-wait may wait for 1 CQE without a timeout
	waitTs     sys.Timespec
	waitArg    sys.GeteventsArg
	pipeArmed  bool
	wakeBuf    [64]byte
	efdBuf     [8]byte

	// Shared with other goroutines.
	mu       sync.Mutex
	queue    []msg
	qclosed  bool
	hasWork  atomic.Uint32
	sleeping state32
	parkCh   chan struct{}
	stop     atomic.Bool
	done     chan struct{}
	closeErr error
	final    Stats

	kickMu    sync.RWMutex
	kickOK    bool
	kickSQE   sys.SQE  // MSG_RING posting udWake, sent ring-less
	usePipe   bool     // wake through the pipe instead
	pipeR     *os.File // read end, armed in the ring
	pipeRFd   int
	pipeW     *os.File
	efd       *os.File     // Park: the eventfd registered with the ring
	owner     atomic.Int64 // the loop thread's tid while the loop runs, else 0
	kicks     atomic.Uint64
	violation atomic.Int64 // ring calls off the loop thread (checkThread)
}

// sleeping states.
const (
	awake       = 0
	sleepKernel = 1 // in io_uring_enter: wake with a CQE
	sleepPark   = 2 // parked on parkCh
	sleepEfd    = 3 // Park: parked on the eventfd, with operations in flight
)

// checkThread makes every ring call check that it runs on the loop's
// thread (tests set it).
var checkThread = false

// New starts a loop: a goroutine locked to its OS thread, which creates
// the ring on that thread. It returns once the ring exists.
func New(cfg Config) (*Loop, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	l := &Loop{
		cfg:      cfg,
		strategy: cfg.Strategy,
		iopoll:   cfg.Strategy == IOPoll || cfg.Strategy == HybridIOPoll,
		sqpoll:   cfg.Strategy == SQPoll,
		parkCh:   make(chan struct{}, 1),
		done:     make(chan struct{}),
	}
	errc := make(chan error, 1)
	go l.run(errc)
	if err := <-errc; err != nil {
		return nil, err
	}
	return l, nil
}

func (l *Loop) run(errc chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := l.start(); err != nil {
		l.owner.Store(0)
		errc <- err
		return
	}
	errc <- nil
	l.loop()
	l.finish()
}

// start creates the ring and the wakeup path, on the loop thread.
func (l *Loop) start() error {
	l.tid = sys.Gettid()
	l.owner.Store(int64(l.tid))
	r, err := uring.New(l.cfg.Entries, l.cfg.ringOptions()...)
	if err != nil {
		if l.cfg.Strategy == HybridIOPoll && errors.Is(err, syscall.EINVAL) {
			return errors.Join(uring.ErrUnsupported, err)
		}
		return err
	}
	l.ring = r
	l.cqes = make([]sys.CQE, r.CQEntries())
	l.slots, l.freeHead = nil, noSlot
	for len(l.slots) < l.cfg.Slots {
		l.grow()
	}
	l.st.Strategy = l.strategy.String()
	l.batchWait = l.cfg.WaitBatch > 1 && r.Features()&sys.FeatMinTimeout != 0 && r.Fd() >= 0
	if l.cfg.WaitBatch > 1 && !l.batchWait {
		l.cfg.WaitBatch = 1 // no min-timeout: never hold a ready CQE back
	}
	l.plainWait = l.cfg.WaitBatch <= 1 && !l.sqpoll
	if l.strategy == Park {
		l.batchWait = false
		if err := l.startPark(); err != nil {
			_ = r.Close()
			return err
		}
		return nil
	}
	if l.iopoll {
		return nil // never sleeps in the kernel: parked loops are woken in Go
	}
	l.kickSQE = sys.SQE{Opcode: sys.OpMsgRing, Fd: int32(r.Fd()), Addr: sys.MsgData, Off: udWake}
	l.kickOK = true
	if !l.cfg.wakePipe {
		// Probe IORING_REGISTER_SEND_MSG_RING (6.13) on our own ring.
		if _, err := sys.Register(-1, sys.RegisterSendMsgRing, &l.kickSQE, 1); err == nil {
			return nil
		}
	}
	l.usePipe = true
	if l.pipeR, l.pipeW, err = os.Pipe(); err != nil {
		_ = r.Close()
		return err
	}
	rc, err := l.pipeR.SyscallConn()
	if err == nil {
		err = rc.Control(func(fd uintptr) { l.pipeRFd = int(fd) })
	}
	if err != nil {
		l.closePipe()
		_ = r.Close()
		return err
	}
	l.armPipe()
	return nil
}

// loop runs until Close and every CQE are in. A round reaps and
// dispatches, then submits what the handlers prepared at once (one enter
// both submits and, under Block, waits), without polling the CQ again.
func (l *Loop) loop() {
	for {
		if l.usePipe && !l.pipeArmed && !l.closing {
			l.armPipe()
		}
		if len(l.backlog) != 0 || l.hasWork.Load() != 0 {
			l.takeWork()
		}
		if !l.closing && l.stop.Load() {
			l.beginClose()
		}
		if l.closing && l.shutdownStep() {
			return
		}
		n := l.reap()
		if n > 0 && l.spins > 0 {
			l.endSpin()
		}
		if l.needSubmit() {
			if l.strategy == Block {
				l.submitAndWait() // one enter submits and waits
			} else if l.iopoll {
				l.enterIOPoll()
			} else {
				l.submit()
			}
			continue
		}
		if n > 0 {
			continue
		}
		if len(l.backlog) > 0 && l.sqpoll && l.ring.SQSpace() == 0 {
			l.waitSQSpace()
			continue
		}
		if l.inflight == 0 && !l.closing && len(l.backlog) == 0 {
			// Idle. Spin and Hybrid keep spinning for new work (it arrives
			// without a wakeup), then park.
			if (l.strategy == Spin || l.strategy == Hybrid) && l.spinOn() {
				continue
			}
			l.endSpin()
			l.park()
			continue
		}
		switch {
		case l.iopoll:
			l.enterIOPoll() // the kernel polls the device; never sleeps
		case l.strategy == Block:
			l.waitKernel()
		case l.strategy == Park:
			l.waitPark()
		case l.spinOn():
		default:
			l.waitKernel()
		}
	}
}

// spinOn counts one empty poll and reports whether to keep spinning.
func (l *Loop) spinOn() bool {
	if l.spins == 0 {
		l.spinStart = time.Now()
	}
	l.spins++
	if l.strategy == Hybrid {
		if l.spins&31 != 0 || time.Since(l.spinStart) < l.cfg.SpinTime {
			return true
		}
	} else if l.spins < l.cfg.SpinBudget {
		return true
	}
	l.endSpin()
	return false
}

func (l *Loop) endSpin() {
	if l.spins > 0 {
		l.st.SpinNanos += int64(time.Since(l.spinStart))
		l.spins = 0
	}
}

// needSubmit reports whether prepared SQEs wait for a submit.
func (l *Loop) needSubmit() bool {
	if l.sqpoll {
		return l.unflushed > 0
	}
	return l.unflushed > 0 || l.ring.SQReady() > 0
}

// reap copies ready CQEs out of the ring and dispatches them. With the
// CQ empty it enters to flush only when the kernel flags CQ overflow or
// deferred task work (on IOPOLL rings, only for overflow: enterIOPoll
// polls the device, submitting too).
func (l *Loop) reap() int {
	if checkThread {
		l.assertThread()
	}
	if l.ring.CQReady() == 0 && !l.flushCQ() {
		return 0
	}
	n := l.ring.Reap(l.cqes)
	if n == 0 {
		return 0
	}
	l.st.Reaps++
	l.dispatch(l.cqes[:n])
	return n
}

// flushCQ reports whether an empty CQ needs Reap's flushing enter, and
// counts it.
func (l *Loop) flushCQ() bool {
	f := l.ring.SQFlags()
	if f&sys.SQCQOverflow == 0 && (l.iopoll || f&sys.SQTaskrun == 0) {
		return false
	}
	l.st.Enters++ // Reap enters with GETEVENTS to flush
	if f&sys.SQCQOverflow != 0 {
		l.st.OverflowFlushes++
	}
	return true
}

// submit publishes prepared SQEs (with SQPOLL it enters only to wake the
// SQ thread when IORING_SQ_NEED_WAKEUP is set).
func (l *Loop) submit() {
	if checkThread {
		l.assertThread()
	}
	if l.sqpoll {
		if l.ring.SQFlags()&sys.SQNeedWakeup != 0 {
			l.st.SQWakeups++
			l.st.Enters++
		}
	} else {
		l.st.Enters++
	}
	if l.ring.SQFlags()&sys.SQCQOverflow != 0 {
		l.st.OverflowFlushes++ // the submit enters with GETEVENTS, which flushes
	}
	l.unflushed = 0
	l.st.Submits++
	if _, err := l.ring.Submit(); err != nil {
		l.enterErr(err)
	}
}

// enterIOPoll submits what is prepared and polls for completions in one
// enter (GETEVENTS, min_complete 1: the kernel polls until one completes,
// it needs to reschedule, or nothing is left to poll).
func (l *Loop) enterIOPoll() {
	if checkThread {
		l.assertThread()
	}
	l.unflushed = 0
	l.st.Enters++
	if _, err := l.ring.SubmitAndWait(1); err != nil {
		l.enterErr(err)
	}
}

// submitAndWait is Block's hot path: one enter submits the batch and
// waits for a CQE, without the clock reads and EXT_ARG of a timed wait
// (wakeups end it; a closing loop and batched waits use waitKernel).
// Its time is not in BlockNanos: most such enters return at once with
// CQEs completed inline.
func (l *Loop) submitAndWait() {
	if l.closing || !l.plainWait {
		l.waitKernel()
		return
	}
	if checkThread {
		l.assertThread()
	}
	l.sleeping.Store(sleepKernel)
	if l.hasWork.Load() != 0 || l.stop.Load() {
		l.setAwake()
		l.submit()
		return
	}
	l.unflushed = 0
	l.st.Submits++
	l.st.Waits++
	l.st.Enters++
	_, err := l.ring.SubmitAndWait(1)
	l.setAwake()
	if err != nil {
		l.enterErr(err)
	}
}

// setAwake ends a kernel wait. A release store is enough (a plain MOV on
// amd64, not sync/atomic's XCHG): a waker that still reads sleepKernel
// only sends a spare wakeup CQE; going to sleep is what needs the full
// barrier (the Store of sleepKernel before the loads of hasWork and stop).
func (l *Loop) setAwake() { l.sleeping.StoreRelease(awake) }

// waitKernel submits what is prepared and sleeps in the kernel until a CQE
// arrives, a wakeup is posted, or WaitTimeout passes.
func (l *Loop) waitKernel() {
	if checkThread {
		l.assertThread()
	}
	if l.sqpoll && l.unflushed > 0 {
		l.submit()
	}
	l.sleeping.Store(sleepKernel)
	// Pairs with enqueue's hasWork store then sleeping load: one of us sees
	// the other (both sequentially consistent).
	if l.hasWork.Load() != 0 || (l.stop.Load() && !l.closing) {
		l.setAwake()
		if l.needSubmit() {
			l.submit()
		}
		return
	}
	l.unflushed = 0
	timeout := l.cfg.WaitTimeout
	if l.closing {
		timeout = min(timeout, recancelEvery)
	}
	t0 := time.Now()
	var err error
	if l.batchWait {
		err = l.waitMin(timeout)
	} else {
		_, err = l.ring.WaitCQEsTimeout(l.cfg.WaitBatch, timeout, l.cfg.MinWait)
	}
	l.st.BlockNanos += int64(time.Since(t0))
	l.st.Waits++
	l.st.Enters++
	l.setAwake()
	if err != nil && !errors.Is(err, uring.ErrTimeout) {
		l.enterErr(err)
	}
}

// waitSQSpace waits for the SQ thread to consume SQEs
// (IORING_ENTER_SQ_WAIT, 5.10) when requests wait for room. The Ring has
// no call for it, so the loop enters itself (its thread owns the ring).
func (l *Loop) waitSQSpace() {
	if checkThread {
		l.assertThread()
	}
	l.st.Enters++
	flags := sys.EnterSQWait
	if l.ring.SQFlags()&sys.SQNeedWakeup != 0 {
		flags |= sys.EnterSQWakeup
	}
	if _, err := sys.Enter(l.ring.Fd(), 0, 0, flags); err != nil && !errors.Is(err, syscall.EINTR) {
		l.enterErr(err)
	}
}

// park sleeps in Go until work arrives (nothing is in flight).
func (l *Loop) park() {
	l.sleeping.Store(sleepPark)
	if l.hasWork.Load() != 0 || l.stop.Load() {
		l.setAwake()
		return
	}
	t0 := time.Now()
	<-l.parkCh
	l.st.ParkNanos += int64(time.Since(t0))
	l.st.Parks++
	l.setAwake()
}

// enterErr handles an error from io_uring_enter: EAGAIN/EBUSY mean reap
// and retry; anything else ends the loop.
func (l *Loop) enterErr(err error) {
	if errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EBUSY) {
		l.st.Busy++
		return
	}
	if l.fatal == nil {
		l.fatal = err
	}
	l.beginClose()
}

// assertThread counts ring calls made off the loop thread (tests only;
// callers check checkThread first, so that the hot path pays one load).
func (l *Loop) assertThread() {
	if sys.Gettid() != l.tid {
		l.violation.Add(1)
	}
}

// Ring returns the loop's ring, for the loop thread only (registering
// files or buffers from a Run function, say).
func (l *Loop) Ring() *uring.Ring { return l.ring }

// InFlight returns how many operations hold a slot (loop thread only).
func (l *Loop) InFlight() int { return l.inflight }
