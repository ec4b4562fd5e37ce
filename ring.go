package uring

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/pure-uring/uring/sys"
)

// Ring is one io_uring instance: its submission and completion queues
// mapped into this process.
type Ring struct {
	sq submitQueue
	cq completionQueue

	enterFd    int            // fd or registered index used for io_uring_enter
	enterFlags sys.EnterFlags // EnterRegisteredRing when enterFd is an index
	flags      sys.SetupFlags
	params     sys.Params

	// waitArg and waitTs are the EXT_ARG of blocking waits: fields of the
	// heap-allocated Ring so a wait allocates nothing; waitMask is the
	// signal mask of a wait with one (wait_ext.go).
	waitArg  sys.GeteventsArg
	waitTs   sys.Timespec
	waitMask sys.Sigset

	// noIOWait is sys.EnterNoIOWait after SetIOWait(false), else 0: ORed
	// into every enter that may wait.
	noIOWait atomic.Uint32

	// closed mirrors life.closed in the Ring itself, saving a pointer load
	// on every SQE and CQE call.
	closed atomic.Bool

	// inline is SubmitAndWait's inline-first memory (sq_inline.go).
	inline inlineState

	// issuerTid is the thread the kernel took as the submitter of a
	// SINGLE_ISSUER ring, 0 while none is known (issuer.go).
	issuerTid atomic.Int32

	life *lifetime
}

type submitQueue struct {
	head    *uint32 // kernel-owned: advanced by the kernel (or SQ thread)
	tail    *uint32 // ours: published to the kernel
	flags   *uint32 // IORING_SQ_* set by the kernel
	dropped *uint32
	sqes    []sys.SQE // 64-byte slots; an SQE128 takes two
	mask    uint32
	entries uint32
	shift   uint32 // 1 on SQE128 rings
	// sqeHead..sqeTail are handed out but not yet published.
	sqeHead uint32
	sqeTail uint32
}

type completionQueue struct {
	head     *uint32 // ours: published to the kernel
	tail     *uint32 // kernel-owned
	flags    *uint32
	overflow *uint32
	cqes     []sys.CQE // 16-byte slots; a 32-byte CQE takes two
	mask     uint32    // in CQEs
	entries  uint32
	shift    uint32 // 1 on CQE32 rings
	mixed    bool   // CQE_MIXED: per-CQE size from IORING_CQE_F_32
}

// lifetime holds what must be released exactly once, by the teardown
// after Close or by the cleanup of a Ring never closed. It never points
// back at the Ring.
type lifetime struct {
	mu         sync.Mutex
	fd         int  // real ring fd, -1 with REGISTERED_FD_ONLY
	regIndex   int  // registered ring index, -1 when none
	regOnly    bool // the ring lives only in the registered table
	regions    [][]byte
	fdClosed   bool
	regDropped bool // the registered index was unregistered
	// refs counts the calls in flight on the ring (low bits), with
	// closedBit once Close began and doneBit once the ring is torn down
	// (close.go): Go's internal/poll fdMutex, reduced to what a ring needs.
	refs atomic.Int64
	// closed is read on every non-syscall path (a plain load on amd64).
	closed atomic.Bool
	// done is closed by the teardown; Close waits on it. closeErr is the
	// teardown's error, read after done.
	done     chan struct{}
	closeErr error
	// tid is the OS thread that registered the ring fd (REGISTER_RING_FDS
	// entries are per thread), and thread the same thread as the runtime
	// knows it (an enter through the index compares it: no syscall).
	tid    int
	thread sys.Thread
	// waitNr is the min_complete of the last blocking enter: Close posts
	// that many wake-up CQEs so such a wait returns.
	waitNr atomic.Uint32
	// waiters are the threads inside (or about to enter) a call on the
	// ring that may sleep; Close interrupts them with a signal where no
	// CQE can wake them. Kept by the wait paths only (close.go).
	wmu     sync.Mutex
	waiters []int32
	// signalOnly makes Close skip the CQE wake (tests).
	signalOnly bool
	// cqeWake: Close can end a wait by posting CQEs from outside
	// (MSG_RING, 5.18; the ring has an fd), so waits record no thread.
	cqeWake bool
	// regWaiters counts the waits through the registered index, all on
	// the registering thread tid (beginEnterWait).
	regWaiters atomic.Int32
	// fdIdle is closed by the last use of the fd after CloseRingFd began.
	fdIdle     chan struct{}
	fdIdleOnce sync.Once
	// fdUsers counts the calls using the real fd (fdUse), with fdClosing
	// once CloseRingFd began; fdGone once it closed the fd: from then on
	// the ring is reached through its registered index only (closefd.go).
	fdUsers atomic.Int64
	fdGone  atomic.Bool
	// dontFork: DontFork marked the mappings MADV_DONTFORK; Resize marks
	// the new ones (mu held).
	dontFork bool
	// What Close did, for tests: CQE wake rounds, signals sent, and how
	// often it woke up to check on the waiters again.
	cqeWakes, signals, rechecks atomic.Uint32
}

// New sets up a ring with at least entries SQEs (rounded up to a power of
// two by the kernel) and maps it.
func New(entries uint32, opts ...Option) (*Ring, error) {
	var c config
	for _, o := range opts {
		o(&c)
	}
	if err := c.validate(entries); err != nil {
		return nil, err
	}
	if !sys.Supported {
		return nil, ErrUnsupported
	}
	if c.flags&sys.SetupDeferTaskrun != 0 {
		// Let a peek see pending deferred work (IORING_SQ_TASKRUN) instead of
		// entering on every empty peek.
		c.flags |= sys.SetupTaskrunFlag
	}
	r := &Ring{flags: c.flags, life: &lifetime{fd: -1, regIndex: -1, done: make(chan struct{}), fdIdle: make(chan struct{}), waiters: make([]int32, 0, 4)}}
	p := &r.params
	p.Flags = c.flags
	p.SQThreadIdle = c.sqIdle
	p.SQThreadCPU = c.sqCPU
	p.CQEntries = c.cqEntries
	if c.attach != nil {
		if c.attach.closed.Load() {
			return nil, &OptionError{Option: "WithAttachWQ", Reason: "the ring to attach to is closed"}
		}
		wq, ok := c.attach.life.fdUse()
		if !ok || wq < 0 {
			return nil, &OptionError{Option: "WithAttachWQ", Reason: "the ring to attach to has no fd (WithRegisteredFdOnly, or CloseRingFd)"}
		}
		defer c.attach.life.fdDone()
		p.WQFd = uint32(wq)
	}
	if c.flags&sys.SetupNoMmap != 0 {
		if err := r.allocUserRings(entries, &c); err != nil {
			return nil, err
		}
	}
	fd, err := sys.Setup(entries, p)
	runtime.KeepAlive(c.attach)
	if err != nil {
		r.life.release()
		return nil, setupError(p.Flags, err)
	}
	if c.flags&sys.SetupRegisteredFdOnly != 0 {
		r.life.regOnly = true
		r.life.regIndex = fd
		r.life.tid, r.life.thread = sys.Gettid(), sys.CurrentThread()
		r.enterFd, r.enterFlags = fd, sys.EnterRegisteredRing
	} else {
		r.life.fd = fd
		r.enterFd = fd
	}
	if err := r.mapRings(); err != nil {
		r.life.release()
		return nil, err
	}
	if c.flags&sys.SetupRDisabled == 0 {
		r.noteIssuer()
	}
	if c.registerFd {
		if err := r.registerRingFd(); err != nil {
			r.life.release()
			return nil, err
		}
	}
	r.life.cqeWake = r.life.fd >= 0 && canPostCQEs()
	runtime.AddCleanup(r, (*lifetime).release, r.life)
	return r, nil
}

// registerRingFd registers the ring fd with itself and enters through the
// index from now on (IORING_REGISTER_RING_FDS, 5.18).
func (r *Ring) registerRingFd() error {
	upd := sys.RsrcUpdate{Offset: ^uint32(0), Data: uint64(r.life.fd)}
	if _, err := sys.Register(r.life.fd, sys.RegisterRingFds, &upd, 1); err != nil {
		return registerOpError(sys.RegisterRingFds, err)
	}
	r.life.regIndex = int(upd.Offset)
	r.life.tid, r.life.thread = sys.Gettid(), sys.CurrentThread()
	r.enterFd, r.enterFlags = int(upd.Offset), sys.EnterRegisteredRing
	return nil
}

// Fd returns the ring fd, or -1 for a WithRegisteredFdOnly ring and once
// CloseRingFd closed it.
func (r *Ring) Fd() int {
	if r.life.fdGone.Load() {
		return -1
	}
	return r.life.fd
}

// RegisterTarget returns what io_uring_register(2) needs for this ring: the
// fd, or the registered index with the flag to OR into the opcode (a
// WithRegisteredFdOnly ring, and any ring once CloseRingFd began). The
// index names the ring only on the thread that registered it. The fd
// can be closed right after by a concurrent CloseRingFd: UseTarget keeps
// it open for the length of a call, and checks the thread for the index.
func (r *Ring) RegisterTarget() (fd int, flag sys.RegisterOp) {
	if r.life.regOnly || r.life.fdUsers.Load()&fdClosing != 0 {
		return r.life.regIndex, sys.RegisterUseRegisteredRing
	}
	return r.life.fd, 0
}

// Params returns the parameters the kernel filled in at setup.
func (r *Ring) Params() sys.Params { return r.params }

// Features returns the kernel's IORING_FEAT_* bits.
func (r *Ring) Features() sys.Features { return r.params.Features }

// SetupFlags returns the flags the ring was created with.
func (r *Ring) SetupFlags() sys.SetupFlags { return r.flags }

// SQEntries returns the SQ size.
func (r *Ring) SQEntries() uint32 { return r.sq.entries }

// CQEntries returns the CQ size.
func (r *Ring) CQEntries() uint32 { return r.cq.entries }
