//go:build linux

package reg

import (
	"errors"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/cqe"
	"github.com/pure-uring/uring/internal/udata"
	"github.com/pure-uring/uring/sys"
)

// ErrNoBuffer is returned by Take for a CQE without IORING_CQE_F_BUFFER: an
// error CQE (ENOBUFS included) or a request that selected no buffer. Nothing
// is handed out and nothing is recycled.
var ErrNoBuffer = errors.New("reg: the CQE carries no buffer (IORING_CQE_F_BUFFER clear)")

// InternalUserData is the user_data of the SQEs a BufPool queues on its
// ring by itself (the IORING_OP_PROVIDE_BUFFERS and IORING_OP_REMOVE_BUFFERS
// of a PoolProvideBuffers pool). Their CQEs carry it too: a completion loop
// ignores them (poll's loop counts user_data with bit 63 set as its own,
// task's executor ignores slot indices from 0xFFFFFF00 up; a loop of your
// own must skip them). Such a CQE's res is -errno on failure; on success
// the number of buffers removed (REMOVE_BUFFERS), or for PROVIDE_BUFFERS 0
// (older kernels, 5.10's among them: the number of buffers provided).
const InternalUserData = udata.BufPool

// PoolMechanism is how a BufPool hands its buffers to the kernel.
type PoolMechanism uint8

const (
	// PoolAuto (the zero value, for PoolConfig.Mechanism) picks the best
	// mechanism the kernel has: a kernel-mapped ring, else (Linux 5.19 to
	// 6.3, or UserMemory) a user-mapped ring, else (before 5.19)
	// PROVIDE_BUFFERS.
	PoolAuto PoolMechanism = iota
	// PoolKernelRing is a buffer ring the kernel allocates and reg maps
	// from the ring fd (IORING_REGISTER_PBUF_RING with IOU_PBUF_RING_MMAP,
	// Linux 6.4).
	PoolKernelRing
	// PoolUserRing is a buffer ring in memory reg maps itself
	// (IORING_REGISTER_PBUF_RING, Linux 5.19).
	PoolUserRing
	// PoolProvideBuffers hands buffers over with SQEs
	// (IORING_OP_PROVIDE_BUFFERS, Linux 5.7): the mechanism of kernels
	// without buffer rings.
	PoolProvideBuffers
)

func (m PoolMechanism) String() string {
	switch m {
	case PoolAuto:
		return "auto"
	case PoolKernelRing:
		return "kernel-mapped buffer ring (IOU_PBUF_RING_MMAP)"
	case PoolUserRing:
		return "user-mapped buffer ring (IORING_REGISTER_PBUF_RING)"
	case PoolProvideBuffers:
		return "provided buffers (IORING_OP_PROVIDE_BUFFERS)"
	}
	return "PoolMechanism(" + itoa(int(m)) + ")"
}

// PoolConfig describes a pool of provided buffers.
type PoolConfig struct {
	Group uint16 // buffer group id
	Count int    // buffers, 1..32768; a ring has the next power of two entries
	Size  int    // bytes per buffer, 1..1<<32-1
	// UserMemory asks for a ring in memory reg maps itself (see
	// BufRingConfig); a kernel without rings gets PROVIDE_BUFFERS anyway.
	UserMemory bool
	// Incremental asks for incremental consumption (IOU_PBUF_RING_INC,
	// Linux 6.12; see BufRingConfig). It changes what a CQE means, so a
	// kernel without it is an error (an *uring.UnsupportedError naming
	// IOU_PBUF_RING_INC and 6.12), never a silent fallback.
	Incremental bool
	Huge        bool // back the buffers with 2 MiB huge pages
	// Mechanism is PoolAuto (the best the kernel has), or one mechanism to
	// use even where a better one exists (tests use it to run the
	// fallbacks on a new kernel); a kernel without it answers with an
	// error that names it.
	Mechanism PoolMechanism
}

// tracker knows which buffer ids are out (handed to the application) and,
// for incremental rings, how much of each buffer the kernel has consumed.
type tracker struct {
	m     *mapping
	size  int
	out   bitmap
	nOut  int
	off   []uint32 // incremental only
	inc   bool
	count int
}

func newTracker(fn string, cfg PoolConfig, inc bool) (tracker, error) {
	if err := checkPoolConfig(fn, cfg); err != nil {
		return tracker{}, err
	}
	m, err := mapAnon(fn, cfg.Count*cfg.Size, cfg.Huge)
	if err != nil {
		return tracker{}, err
	}
	tr := tracker{m: m, size: cfg.Size, out: newBitmap(cfg.Count), inc: inc, count: cfg.Count}
	if inc {
		tr.off = make([]uint32, cfg.Count)
	}
	return tr, nil
}

func checkPoolConfig(fn string, cfg PoolConfig) error {
	if cfg.Count <= 0 || cfg.Count > MaxBufRingEntries {
		return argErr(fn, "Count", eq(cfg.Count)+" is not in [1, 32768]")
	}
	if cfg.Size <= 0 || uint64(cfg.Size) > 1<<32-1 {
		return argErr(fn, "Size", eq(cfg.Size)+" is not in [1, 1<<32-1]")
	}
	return nil
}

func (tr *tracker) buf(bid uint16) []byte {
	o := int(bid) * tr.size
	return tr.m.mem[o : o+tr.size : o+tr.size]
}

// cqeBuffer returns the buffer id a CQE names, checked: ErrNoBuffer without
// IORING_CQE_F_BUFFER, *ArgError for an id out of range or already out.
func (tr *tracker) cqeBuffer(fn string, flags sys.CQEFlags) (uint16, error) {
	bid, ok := cqe.Buffer(&sys.CQE{Flags: flags}) // on the stack: cqe.Buffer inlines
	if !ok {
		return 0, ErrNoBuffer
	}
	if int(bid) >= tr.count {
		return 0, argErr(fn, "buffer id", equ(uint64(bid))+" from the CQE is out of range [0, "+itoa(tr.count)+")")
	}
	if tr.out.has(int(bid)) {
		return 0, argErr(fn, "buffer id", equ(uint64(bid))+" from the CQE is already out (handed out twice)")
	}
	return bid, nil
}

// take decodes a CQE's buffer: see BufPool.Take.
func (tr *tracker) take(fn string, res int32, flags sys.CQEFlags) (uint16, []byte, error) {
	bid, err := tr.cqeBuffer(fn, flags)
	if err != nil {
		return 0, nil, err
	}
	n := int(res)
	if n < 0 {
		n = 0
	}
	start := 0
	if tr.inc {
		start = int(tr.off[bid])
	}
	if n > tr.size-start {
		return 0, nil, argErr(fn, "res", eq(int(res))+" runs past buffer "+equ(uint64(bid))+" of "+itoa(tr.size)+" bytes")
	}
	data := tr.buf(bid)[start : start+n : start+n]
	if tr.inc && cqe.BufMore(&sys.CQE{Flags: flags}) {
		// The kernel keeps the rest of the buffer in the ring.
		tr.off[bid] += uint32(n)
		return bid, data, nil
	}
	tr.out.set(int(bid))
	tr.nOut++
	return bid, data, nil
}

// checkOut checks that bid can be given back: in range and out.
func (tr *tracker) checkOut(fn string, bid uint16) error {
	if int(bid) >= tr.count {
		return argErr(fn, "bid", equ(uint64(bid))+" is out of range [0, "+itoa(tr.count)+")")
	}
	if !tr.out.has(int(bid)) {
		return argErr(fn, "bid", equ(uint64(bid))+" is not out")
	}
	return nil
}

// give marks bid back in; an id that is not out is an error.
func (tr *tracker) give(fn string, bid uint16) error {
	if err := tr.checkOut(fn, bid); err != nil {
		return err
	}
	tr.out.clear(int(bid))
	tr.nOut--
	if tr.inc {
		tr.off[bid] = 0
	}
	return nil
}

// BufPool is a group of provided buffers, in memory reg maps off the Go
// heap, and a record of which buffer ids are out. A buffer id is out from
// the Take of the CQE that delivered it until Put; it is never handed out
// twice, and Put of an id that is not out is an error that changes
// nothing.
//
// The buffers reach the kernel by the best mechanism it has (Mechanism
// says which): a buffer ring the kernel allocates (IOU_PBUF_RING_MMAP,
// Linux 6.4), a buffer ring in memory reg maps (Linux 5.19 to 6.3), or,
// before buffer rings existed, IORING_OP_PROVIDE_BUFFERS SQEs (Linux 5.7).
// The API is the same for all three; what differs:
//   - PoolProvideBuffers needs a target with an SQ (*uring.Ring: GetSQE
//     and Submit). NewBufPool, Put and Close queue an SQE on it with
//     user_data InternalUserData (the completion loop must ignore those
//     CQEs) and submit it at once, together with whatever the ring's owner
//     had queued: the kernel runs PROVIDE_BUFFERS during that submit, so
//     the buffer is back in the kernel when Put returns (on an SQPOLL ring,
//     when the SQ thread reaches the SQE: ahead of every SQE queued after
//     Put). Do not call Put between taking an SQE and filling it in.
//   - Ring has no BufRing to return for PoolProvideBuffers (nil).
//   - Before Linux 5.19 a buffer-select read or receive with length 0
//     reads 0 bytes; Select sets the buffer size as the length there.
//
// Memory lifetime: Close takes the buffers back from the kernel
// (unregisters the ring, or removes the provided buffers); the buffers
// stay mapped until every id that is out has been Put. Close only after
// every request that may select from the group has completed.
//
// A BufPool is not safe for concurrent use: use it from the goroutine that
// reaps the CQEs and submits to the ring (the owner of a SINGLE_ISSUER
// ring's thread).
type BufPool struct {
	mech   PoolMechanism
	group  uint16
	ring   *BufRing // nil for PoolProvideBuffers
	sq     sqTarget // PoolProvideBuffers only
	tr     tracker
	mirror ringMirror // which id the pool wrote at which ring entry, for TakeBundle
	// lenZero: the kernel predates 5.19 and reads a buffer-select length
	// of 0 as 0 bytes (Select writes the size instead).
	lenZero bool
	// bundleErr, for PoolProvideBuffers: why TakeBundle refuses (the
	// kernel has no bundles), or nil.
	bundleErr error
	closed    bool
}

// sqTarget is a Target with an SQ (*uring.Ring), which a
// PoolProvideBuffers pool queues its SQEs on.
type sqTarget interface {
	Target
	GetSQE() (*sys.SQE, error)
	Submit() (int, error)
}

// chooseMechanism decides how a pool with cfg reaches the kernel, given
// the probe has (uring.CheckCapability or a stand-in) and whether the target has
// a ring fd to map a kernel ring from and an SQ for PROVIDE_BUFFERS. A
// probe that fails (neither yes nor an UnsupportedError) is taken as a yes:
// the registration then says what is wrong.
func chooseMechanism(fn string, cfg PoolConfig, has func(uring.Capability) error, fd, sq bool) (PoolMechanism, error) {
	lacks := func(c uring.Capability) error {
		if err := has(c); errors.Is(err, uring.ErrUnsupported) {
			return err
		}
		return nil
	}
	if cfg.Incremental {
		if cfg.Mechanism == PoolProvideBuffers {
			return 0, argErr(fn, "Incremental", "needs a buffer ring, not Mechanism = PoolProvideBuffers")
		}
		if err := lacks(uring.CapBufRingInc); err != nil {
			return 0, err // incremental consumption changes what a CQE means: no fallback
		}
	}
	switch cfg.Mechanism {
	case PoolAuto:
	case PoolKernelRing:
		if cfg.UserMemory {
			return 0, argErr(fn, "UserMemory", "is set with Mechanism = PoolKernelRing")
		}
		if !fd {
			return 0, argErr(fn, "Mechanism", "= PoolKernelRing needs a ring fd to map the kernel's ring; this target has none")
		}
		return PoolKernelRing, lacks(uring.CapBufRingMmap)
	case PoolUserRing:
		return PoolUserRing, lacks(uring.CapBufRing)
	case PoolProvideBuffers:
		if !sq {
			return 0, argErr(fn, "Mechanism", "= PoolProvideBuffers needs a target with an SQ (GetSQE and Submit: *uring.Ring)")
		}
		return PoolProvideBuffers, nil
	default:
		return 0, argErr(fn, "Mechanism", "= "+itoa(int(cfg.Mechanism))+" is not a PoolMechanism")
	}
	if err := lacks(uring.CapBufRing); err != nil {
		if !sq {
			var ue *uring.UnsupportedError
			if errors.As(err, &ue) {
				u := *ue
				u.Reason = "and the target has no SQ for IORING_OP_PROVIDE_BUFFERS, the fallback (use a *uring.Ring)"
				return 0, &u
			}
			return 0, err
		}
		return PoolProvideBuffers, nil
	}
	if cfg.UserMemory || !fd || lacks(uring.CapBufRingMmap) != nil {
		return PoolUserRing, nil // the same ring in memory reg maps
	}
	return PoolKernelRing, nil
}

// NewBufPool maps cfg.Count buffers of cfg.Size bytes and hands them all to
// the kernel for cfg.Group (buffer id i is buffer i): it registers a ring
// and fills it, or, on a kernel without buffer rings, provides them with
// one PROVIDE_BUFFERS SQE, submitted before NewBufPool returns. The
// mechanism is the best the kernel has unless cfg.Mechanism names one.
func NewBufPool(t Target, cfg PoolConfig) (*BufPool, error) {
	const fn = "NewBufPool"
	if r, ok := t.(*uring.Ring); t == nil || ok && r == nil {
		return nil, argErr(fn, "t", "is nil")
	}
	if err := checkPoolConfig(fn, cfg); err != nil {
		return nil, err
	}
	sq, hasSQ := t.(sqTarget)
	mech, err := chooseMechanism(fn, cfg, func(c uring.Capability) error {
		return probeOff(func() error { return supports(c) })
	}, ringFd(t) >= 0, hasSQ)
	if err != nil {
		return nil, err
	}
	tr, err := newTracker(fn, cfg, cfg.Incremental)
	if err != nil {
		return nil, err
	}
	p := &BufPool{mech: mech, group: cfg.Group, tr: tr}
	if mech == PoolProvideBuffers {
		if err := p.initProvide(fn, sq); err != nil {
			tr.m.put()
			return nil, err
		}
		return p, nil
	}
	entries := 1
	for entries < cfg.Count {
		entries <<= 1
	}
	ring, err := RegisterBufRing(t, BufRingConfig{Group: cfg.Group, Entries: entries, UserMemory: mech == PoolUserRing, Incremental: cfg.Incremental})
	if err != nil {
		tr.m.put()
		return nil, err
	}
	p.ring, p.mirror = ring, newRingMirror(entries, cfg.Count)
	p.fill()
	return p, nil
}

// fill puts every buffer in the ring, buffer id i in entry i after the tail.
func (p *BufPool) fill() {
	for i := 0; i < p.tr.count; i++ {
		_ = p.add(uint16(i), i)
	}
	p.advance(p.tr.count)
}

// add stages buffer bid in the ring entry i places after the tail and
// records it in the mirror.
func (p *BufPool) add(bid uint16, i int) error {
	if err := p.ring.Add(p.tr.buf(bid), bid, i); err != nil {
		return err
	}
	p.mirror.wrote(bid, i)
	return nil
}

// advance publishes n staged entries.
func (p *BufPool) advance(n int) {
	p.ring.Advance(n)
	p.mirror.advance(n)
}

// Mechanism returns how the pool hands its buffers to the kernel.
func (p *BufPool) Mechanism() PoolMechanism { return p.mech }

// Ring returns the underlying ring, for Head and Tail: entries added to
// it directly bypass the pool's records of ids and ring entries. It is nil
// for a PoolProvideBuffers pool.
func (p *BufPool) Ring() *BufRing { return p.ring }

// Group returns the buffer group id.
func (p *BufPool) Group() uint16 { return p.group }

// Count returns the number of buffers.
func (p *BufPool) Count() int { return p.tr.count }

// Size returns the size of each buffer in bytes.
func (p *BufPool) Size() int { return p.tr.size }

// Out returns how many buffer ids are out.
func (p *BufPool) Out() int { return p.tr.nOut }

// IsOut reports whether bid is out.
func (p *BufPool) IsOut(bid uint16) bool { return int(bid) < p.tr.count && p.tr.out.has(int(bid)) }

// Select makes s (an SQE the sqe builders filled: a read, receive, recvmsg
// or their multishot forms) take its buffer from the pool:
// IOSQE_BUFFER_SELECT and the pool's group (sqe.SetBufferSelect). Before
// Linux 5.19 the kernel caps the request's length at the buffer's, so a
// length of 0 reads 0 bytes (and still uses up a buffer) where later
// kernels read it as "the whole buffer": there Select sets a length of 0
// to Size.
func (p *BufPool) Select(s *sys.SQE) {
	selectBuffer(s, p.group, p.tr.size, p.lenZero)
}

func selectBuffer(s *sys.SQE, group uint16, size int, lenZero bool) {
	s.Flags |= sys.SQEBufferSelect
	s.BufIndex = group
	if lenZero && s.Len == 0 {
		s.Len = uint32(size)
	}
}

// Take decodes the buffer of a CQE (res, flags): it returns the buffer id
// and the res bytes the request wrote, and marks the id out. A CQE without
// IORING_CQE_F_BUFFER returns ErrNoBuffer and changes nothing. On an
// incremental ring a CQE with IORING_CQE_F_BUF_MORE returns the next piece
// of a buffer the kernel keeps using; the id is out only with the last
// piece. The slice is valid until Put(bid).
func (p *BufPool) Take(res int32, flags sys.CQEFlags) (bid uint16, data []byte, err error) {
	if p.Unmapped() {
		// Closed with nothing out: the memory a late CQE points into is gone.
		return 0, nil, argErr("BufPool.Take", "pool", "is closed and its buffers are unmapped")
	}
	return p.tr.take("BufPool.Take", res, flags)
}

// Put gives buffer bid back to the kernel: at the ring's tail, or with a
// PROVIDE_BUFFERS SQE submitted at once (see the type's comment). An id
// that is not out is an error and changes nothing; so is an SQ that stays
// full (the id stays out: Put again later); a *PoolError with Queued set
// reports a failed submit of an SQE that is queued all the same (the id is
// back). After Close, Put only
// releases the id (and unmaps the buffers with the last one).
func (p *BufPool) Put(bid uint16) error {
	const fn = "BufPool.Put"
	if p.closed {
		if err := p.tr.give(fn, bid); err != nil {
			return err
		}
		if p.tr.nOut == 0 {
			p.tr.m.put()
		}
		return nil
	}
	if p.mech == PoolProvideBuffers {
		if err := p.tr.checkOut(fn, bid); err != nil {
			return err
		}
		err := p.provide(fn, bid)
		if err != nil && !queued(err) {
			return err
		}
		_ = p.tr.give(fn, bid) // checked above
		return err
	}
	if err := p.tr.give(fn, bid); err != nil {
		return err
	}
	if err := p.add(bid, 0); err != nil {
		return err
	}
	p.advance(1)
	return nil
}

// Unmapped reports whether the buffers have been unmapped (closed and no
// id out).
func (p *BufPool) Unmapped() bool { return p.closed && p.tr.nOut == 0 }

// Close takes the buffers back from the kernel: it unregisters the ring,
// or submits a REMOVE_BUFFERS SQE for the group (after the io_uring's
// Close the kernel has let go already, and Close only unmaps what reg
// mapped). The buffers are unmapped now when none is out, else by the Put
// of the last one. A PoolProvideBuffers pool whose SQ stays full returns
// the error and stays open (Close again later).
func (p *BufPool) Close() error {
	if p.closed {
		return argErr("BufPool.Close", "pool", "is already closed")
	}
	var err error
	if p.mech == PoolProvideBuffers {
		if err = p.remove("BufPool.Close"); err != nil && !queued(err) {
			return err
		}
	} else {
		err = p.ring.Unregister()
	}
	p.closed = true
	if p.tr.nOut == 0 {
		p.tr.m.put()
	}
	return err
}
