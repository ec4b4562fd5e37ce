//go:build linux

package reg

import (
	"errors"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sys"
)

// checkCloneRange checks a range of n slots from srcOff of b into a table
// on the destination from dstOff.
func (b *Buffers) checkCloneRange(fn string, dstOff, srcOff, n int) error {
	switch {
	case n <= 0:
		return argErr(fn, "n", eq(n)+" is not positive (Clone copies the whole table)")
	case srcOff < 0 || srcOff > len(b.slots)-n:
		return argErr(fn, "srcOff", eq(srcOff)+": slots ["+itoa(srcOff)+", "+itoa(srcOff)+"+"+itoa(n)+") are not all in the table of "+itoa(len(b.slots)))
	case dstOff < 0 || dstOff > maxRegBuffers-n:
		return argErr(fn, "dstOff", eq(dstOff)+": slots ["+itoa(dstOff)+", "+itoa(dstOff)+"+"+itoa(n)+") exceed the 16384 a table holds")
	}
	return nil
}

// cloneRange asks the kernel to register b's slots [srcOff, srcOff+n) on
// dst at dstOff (IORING_REGISTER_CLONE_BUFFERS with offsets).
func (b *Buffers) cloneRange(dst Target, dstOff, srcOff, n int, replace bool) error {
	cb := sys.CloneBuffers{SrcOff: uint32(srcOff), DstOff: uint32(dstOff), Nr: uint32(n)}
	if replace {
		cb.Flags |= sys.RegisterDstReplace
	}
	return b.cloneTo(dst, cb)
}

// cloneTo calls IORING_REGISTER_CLONE_BUFFERS on dst with cb, naming b's
// ring as the source by its fd (or registered index) while that ring is
// held open (useTarget): a number read before, of a ring closed since,
// could name another ring by the time of the call, whose buffers the
// kernel would clone. The source's hold spans the destination's call,
// which takes a hold of its own; neither waits for the other (a hold is a
// reference count, and Close waits only for the calls in flight), so the
// two may be the same ring, or two rings cloned both ways at once.
func (b *Buffers) cloneTo(dst Target, cb sys.CloneBuffers) error {
	return useTarget(b.t, func(srcFd int, srcFlag sys.RegisterOp) error {
		c := cb
		c.SrcFd = uint32(srcFd)
		if srcFlag != 0 {
			c.Flags |= sys.RegisterSrcRegistered
		}
		_, err := register(dst, sys.RegisterCloneBuffers, &c, 1)
		return err
	})
}

// holdMappings takes a reference on every mapping b's slots point into,
// for a table that now shares them, and returns them.
func (b *Buffers) holdMappings() []*mapping {
	held := append([]*mapping{b.m}, b.extra...)
	for _, m := range held {
		m.get()
	}
	return held
}

// CloneRange registers n of b's buffers, slots [srcOff, srcOff+n), on the
// ring dst as slots [dstOff, dstOff+n) of a new table of dstOff+n slots
// (the ones below dstOff empty): io_uring_clone_buffers_offset(3)
// (liburing 2.9), IORING_REGISTER_CLONE_BUFFERS with offsets, Linux 6.13
// (6.12 clones whole tables only: an *uring.UnsupportedError). dst must
// have no buffer table (EBUSY otherwise: CloneRangeInto replaces slots of
// one). The clone shares the memory, as Clone's does; tags are not cloned.
func (b *Buffers) CloneRange(dst Target, dstOff, srcOff, n int) (*Buffers, error) {
	if b.unreg.Load() {
		return nil, ErrUnregistered
	}
	if err := b.checkCloneRange("Buffers.CloneRange", dstOff, srcOff, n); err != nil {
		return nil, err
	}
	if err := cloneRangeErr(b.cloneRange(dst, dstOff, srcOff, n, false), false); err != nil {
		return nil, err
	}
	held := b.holdMappings()
	c := &Buffers{t: dst, m: b.m, slots: make([]slotRange, dstOff+n), extra: held[1:]}
	copy(c.slots[dstOff:], b.slots[srcOff:srcOff+n])
	c.alloc.init(len(c.slots))
	return c, nil
}

// CloneRangeInto registers n of b's buffers, slots [srcOff, srcOff+n), in
// dst's table as slots [dstOff, dstOff+n), replacing what was there and
// keeping dst's other slots; the table grows to dstOff+n slots when it is
// smaller: io_uring_clone_buffers_offset(3) with
// IORING_REGISTER_DST_REPLACE, Linux 6.13. Requests in flight keep the
// buffers they use. dst's Buf returns b's memory for those slots, which
// stays mapped while dst holds it; Update can later put dst's own memory
// back. Tags are not cloned (a replaced slot's tag is posted as for an
// update).
func (b *Buffers) CloneRangeInto(dst *Buffers, dstOff, srcOff, n int) error {
	if b.unreg.Load() || dst.unreg.Load() {
		return ErrUnregistered
	}
	if err := b.checkCloneRange("Buffers.CloneRangeInto", dstOff, srcOff, n); err != nil {
		return err
	}
	if err := cloneRangeErr(b.cloneRange(dst.t, dstOff, srcOff, n, true), true); err != nil {
		return err
	}
	dst.extra = append(dst.extra, b.holdMappings()...)
	if len(dst.slots) < dstOff+n {
		grown := make([]slotRange, dstOff+n)
		copy(grown, dst.slots)
		dst.slots = grown
		dst.alloc.grow(len(grown))
	}
	for i := 0; i < n; i++ {
		s := b.slots[srcOff+i]
		if s.m == nil && s.n > 0 {
			s.m = b.m // b's own memory, not dst's
		}
		dst.slots[dstOff+i] = s
	}
	return nil
}

// cloneRangeErr explains the EINVAL a 6.12 kernel gives a clone with
// offsets (its struct has no such fields, they must be zero), and with
// replace its EBUSY (it checks for a table on dst first).
func cloneRangeErr(err error, replace bool) error {
	return cloneFlagErr(err, "clone offsets (io_uring_clone_buffers_offset)", replace)
}

// cloneFlagErr turns the EINVAL (or, for DST_REPLACE, EBUSY) of a 6.12
// kernel, whose CLONE_BUFFERS takes whole tables without flags beyond
// SRC_REGISTERED, into an *uring.UnsupportedError naming what (6.13).
func cloneFlagErr(err error, what string, busyToo bool) error {
	var re *Error
	if err == nil || !errors.As(err, &re) || re.Unsupported {
		return err
	}
	if en := re.Errno(); en != unix.EINVAL && !(busyToo && en == unix.EBUSY) {
		return err
	}
	if ok, kerr := uring.KernelAtLeast("6.13"); kerr == nil && !ok {
		re.Err = &uring.UnsupportedError{Feature: what, MinimumVersion: "6.13", Kernel: uring.KernelRelease(), Err: re.Err}
		re.Unsupported, re.Hint = true, ""
	}
	return err
}

// grow extends the allocator to n indices; the new ones are free and
// handed out after the old free ones.
func (a *indexAlloc) grow(n int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	old := a.out.len()
	if n <= old {
		return
	}
	out := newBitmap(n)
	for i := 0; i < old; i++ {
		if a.out.has(i) {
			out.set(i)
		}
	}
	a.out = out
	free := make([]int32, 0, len(a.free)+n-old)
	for i := n - 1; i >= old; i-- {
		free = append(free, int32(i))
	}
	a.free = append(free, a.free...)
}
