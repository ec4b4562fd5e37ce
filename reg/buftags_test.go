//go:build linux

package reg_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/reg"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// fenceUD is the user_data of the NOP fence; no tag here uses it.
const fenceUD = 0xFE0CE

// fence submits a NOP and returns, in order, the CQEs reaped before its
// CQE: every CQE the kernel posted before the NOP completed. Tag CQEs of
// nodes put during a register call are posted during the call, so after
// Unregister or an update with nothing in flight the fence sees them all.
func fence(t *testing.T, r *uring.Ring) []sys.CQE {
	t.Helper()
	queue(t, r, fenceUD, func(s *sys.SQE) error { sqe.Nop(s); return nil })
	submit(t, r)
	var got []sys.CQE
	for {
		c := wait(t, r)
		if c.UserData == fenceUD {
			require.Equal(t, int32(0), c.Res)
			noCQE(t, r)
			return got
		}
		got = append(got, c)
	}
}

// syncTags reports whether tags follow Linux 6.13's resource nodes: a
// release nothing waits for posts its tag during the register call, and
// Unregister posts the tags of the slots it releases. Before 6.13
// Unregister posts no tags at all, and an update's tag comes from a
// workqueue once the old node's references are dropped (the submitting
// task caches some until its next io_uring_enter; the work runs up to a
// second later).
func syncTags(t *testing.T) bool {
	t.Helper()
	ok, err := uring.KernelAtLeast("6.13")
	require.NoError(t, err)
	return ok
}

// awaitTag waits (10 s at most) for the tag CQE with user_data tag,
// submitting a NOP each round (its enter drops the references the kernel
// caches for this task), and returns the other CQEs that came before it,
// NOPs and a pool's own left out.
func awaitTag(t *testing.T, r *uring.Ring, tag uint64) []sys.CQE {
	t.Helper()
	var others []sys.CQE
	found := false
	take := func(c sys.CQE) {
		switch c.UserData {
		case tag:
			require.False(t, found, "tag %#x twice", tag)
			require.Equal(t, sys.CQE{UserData: tag}, c)
			found = true
		case reg.InternalUserData:
		default:
			others = append(others, c)
		}
	}
	for deadline := time.Now().Add(10 * time.Second); !found; {
		require.True(t, time.Now().Before(deadline), "no tag CQE %#x in 10 s", tag)
		queue(t, r, fenceUD, func(s *sys.SQE) error { sqe.Nop(s); return nil })
		submit(t, r)
		for {
			c := wait(t, r)
			if c.UserData == fenceUD {
				require.Equal(t, int32(0), c.Res)
				break
			}
			take(c)
		}
		if found {
			break
		}
		// The workqueue may post it a moment later.
		c, err := r.WaitCQETimeout(200 * time.Millisecond)
		if errors.Is(err, uring.ErrTimeout) {
			continue
		}
		require.NoError(t, err)
		v := *c
		r.CQESeen(c)
		take(v)
	}
	return others
}

const markerTag = 0x3A7C3E2

// settle returns the tag CQEs posted so far: fence where tags come during
// the register calls (6.13+), else the CQEs that came before the tag of
// a marker released after everything else: a one-slot file table (or,
// with files set, buffer table) tagged markerTag, emptied.
func settle(t *testing.T, r *uring.Ring, files bool) []sys.CQE {
	t.Helper()
	if syncTags(t) {
		return fence(t, r)
	}
	if files {
		bufs, err := reg.RegisterBuffers(r, reg.BufferConfig{Count: 1, Size: 64, Tags: []uint64{markerTag}})
		require.NoError(t, err)
		require.NoError(t, bufs.Update(0, nil))
		got := awaitTag(t, r, markerTag)
		require.NoError(t, bufs.Unregister())
		return got
	}
	rd, _ := pipe(t)
	f, err := reg.RegisterFiles(r, []int{rd}, []uint64{markerTag})
	require.NoError(t, err)
	_, err = f.Update(0, []int{reg.Empty}, nil)
	require.NoError(t, err)
	got := awaitTag(t, r, markerTag)
	require.NoError(t, f.Unregister())
	return got
}

func tagCQEs(tags ...uint64) []sys.CQE {
	out := make([]sys.CQE, len(tags))
	for i, tag := range tags {
		out[i] = sys.CQE{UserData: tag, Res: 0, Flags: 0}
	}
	return out
}

func registerTagged(t *testing.T, r *uring.Ring, cfg reg.BufferConfig) *reg.Buffers {
	t.Helper()
	bufs, err := reg.RegisterBuffers(r, cfg)
	requireRegister(t, err, sys.RegisterBuffers2) // tags came with BUFFERS2
	return bufs
}

// Unregister posts one CQE per nonzero tag (user_data = tag, res 0), and
// none for a zero tag (6.13+); before 6.13 it posts none at all.
func TestBufferTagsUnregister(t *testing.T) {
	r := newRing(t, 8)
	want := func(tags ...uint64) []sys.CQE {
		if !syncTags(t) {
			return nil
		}
		return tagCQEs(tags...)
	}
	bufs := registerTagged(t, r, reg.BufferConfig{Count: 4, Size: 512, Tags: []uint64{0x1000, 0x1001, 0x1002, 0x1003}})
	require.Empty(t, settle(t, r, false), "registering posts nothing")
	require.NoError(t, bufs.Unregister())
	require.ElementsMatch(t, want(0x1000, 0x1001, 0x1002, 0x1003), settle(t, r, false))

	// Zero tags post nothing; the kernel takes the table back, so a new
	// one registers.
	bufs = registerTagged(t, r, reg.BufferConfig{Count: 4, Size: 512, Tags: []uint64{0, 0x1001, 0, 0x1003}})
	require.NoError(t, bufs.Unregister())
	require.ElementsMatch(t, want(0x1001, 0x1003), settle(t, r, false))

	// No tags at all: nothing.
	bufs = registerTagged(t, r, reg.BufferConfig{Count: 4, Size: 512})
	require.NoError(t, bufs.Unregister())
	require.Empty(t, settle(t, r, false))
}

// Updating a slot while a READ_FIXED uses it: the read finishes on the old
// buffer, and the old buffer's tag CQE comes only after the read's CQE.
func TestBufferTagsUpdateWhileInFlight(t *testing.T) {
	r := newRing(t, 8)
	rd, wr := pipe(t)
	// 4 slots of 512 bytes in a 4096-byte mapping: [2048, 4096) is spare.
	bufs := registerTagged(t, r, reg.BufferConfig{Count: 4, Size: 512, Tags: []uint64{0x1000, 0x1001, 0x1002, 0x1003}})
	mem := bufs.Memory()
	old, next := bufs.Buf(1), mem[2048:2560]
	require.Equal(t, sys.SliceAddr(mem[512:]), sys.SliceAddr(old))

	require.NoError(t, bufs.Acquire())
	queue(t, r, 1, func(s *sys.SQE) error { return sqe.ReadFixed(s, rd, old[:32], sqe.CurrentPos, 1) })
	submit(t, r)
	noCQE(t, r) // pending on the empty pipe

	require.NoError(t, bufs.UpdateTagged(1, next, 0x2001))
	require.Equal(t, sys.SliceAddr(next), sys.SliceAddr(bufs.Buf(1)))
	noCQE(t, r) // no tag yet: the read still holds the old buffer

	_, err := unix.Write(wr, []byte("old buffer data"))
	require.NoError(t, err)
	c := wait(t, r)
	require.Equal(t, sys.CQE{UserData: 1, Res: 15}, c, "the read's CQE comes first")
	require.Empty(t, awaitTag(t, r, 0x1001), "then the old buffer's tag")
	bufs.Release()
	require.Equal(t, "old buffer data", string(old[:15]), "the read finished on the buffer it was issued with")
	require.Equal(t, make([]byte, 512), []byte(next), "the new buffer is untouched")
	require.Empty(t, settle(t, r, false))

	// Slot 1 now reads into the new memory; the old range is outside it.
	_, err = unix.Write(wr, []byte("new"))
	require.NoError(t, err)
	queue(t, r, 2, func(s *sys.SQE) error { return sqe.ReadFixed(s, rd, next[:8], sqe.CurrentPos, 1) })
	submit(t, r)
	require.Equal(t, sys.CQE{UserData: 2, Res: 3}, wait(t, r))
	require.Equal(t, "new", string(next[:3]))
	queue(t, r, 3, func(s *sys.SQE) error { return sqe.ReadFixed(s, rd, old[:8], sqe.CurrentPos, 1) })
	submit(t, r)
	require.Equal(t, unix.EFAULT, errno(t, wait(t, r).Res))

	// An untagged Update releases the tagged buffer at once (nothing uses
	// it): its tag comes during the call. The emptied slot posts nothing
	// on Unregister.
	require.NoError(t, bufs.Update(1, nil))
	if syncTags(t) {
		require.Equal(t, tagCQEs(0x2001), fence(t, r))
		require.NoError(t, bufs.Unregister())
		require.ElementsMatch(t, tagCQEs(0x1000, 0x1002, 0x1003), fence(t, r))
		return
	}
	require.Empty(t, awaitTag(t, r, 0x2001))
	require.NoError(t, bufs.Unregister())
	require.Empty(t, settle(t, r, false), "before 6.13 Unregister posts no tags")
}

// Arguments are checked before the kernel is called: nothing is registered
// or mapped when one is wrong.
func TestBufferTagsBadInputs(t *testing.T) {
	r := newRing(t, 8)
	argErr := func(err error, arg, msg string) {
		t.Helper()
		var ae *reg.ArgError
		require.ErrorAs(t, err, &ae)
		require.Equal(t, arg, ae.Arg)
		require.ErrorIs(t, err, unix.EINVAL)
		require.ErrorContains(t, err, msg)
	}
	_, err := reg.RegisterBuffers(r, reg.BufferConfig{Count: 4, Size: 512, Tags: []uint64{1, 2, 3}})
	argErr(err, "Tags", "reg: RegisterBuffers: Tags has 3 entries, not Count = 4")
	_, err = reg.RegisterBuffers(r, reg.BufferConfig{Count: 4, Size: 512, Tags: []uint64{}})
	argErr(err, "Tags", "Tags has 0 entries, not Count = 4")
	_, err = reg.RegisterBuffers(r, reg.BufferConfig{Count: 4, Size: 512, Sparse: true, Tags: []uint64{0, 0x3001, 0, 0}})
	argErr(err, "Tags[1]", "Tags[1] = 0x3001 on an empty (Sparse) slot")

	// Nothing was registered: a table registers now (EBUSY otherwise).
	// Sparse with zero tags is fine.
	bufs := registerTagged(t, r, reg.BufferConfig{Count: 4, Size: 512, Sparse: true, Tags: make([]uint64, 4)})
	mem := bufs.Memory()
	argErr(bufs.UpdateTagged(2, nil, 0x3002), "tag", "reg: Buffers.UpdateTagged: tag = 0x3002 is set but mem is nil")
	argErr(bufs.UpdateTagged(4, mem[:100], 0x3002), "index", "index = 4 is out of range [0, 4)")
	argErr(bufs.UpdateTagged(2, make([]byte, 100), 0x3002), "mem", "does not lie inside")
	require.Empty(t, settle(t, r, false), "rejected updates post nothing")

	require.NoError(t, bufs.UpdateTagged(2, mem[:100], 0x3002))
	require.NoError(t, bufs.UpdateTagged(3, mem[100:200], 0))
	require.Empty(t, settle(t, r, false))
	require.NoError(t, bufs.Unregister())
	if syncTags(t) {
		require.Equal(t, tagCQEs(0x3002), fence(t, r))
	} else {
		require.Empty(t, settle(t, r, false), "before 6.13 Unregister posts no tags")
	}
	require.ErrorIs(t, bufs.UpdateTagged(2, mem[:100], 0x3003), reg.ErrUnregistered)
}

// Tag CQEs on a full CQ overflow like any other CQE (IORING_FEAT_NODROP):
// none is lost.
func TestBufferTagsOverflow(t *testing.T) {
	r := newRing(t, 2) // CQ of 4 entries
	require.NotZero(t, r.Features()&sys.FeatNoDrop, "Linux 5.5+ keeps overflowed CQEs")
	n := int(r.CQEntries()) * 2
	tags := make([]uint64, n)
	for i := range tags {
		tags[i] = 0x4000 + uint64(i)
	}
	bufs := registerTagged(t, r, reg.BufferConfig{Count: n, Size: 64, Tags: tags})
	extra := 0
	if syncTags(t) {
		require.NoError(t, bufs.Unregister())
	} else {
		// Before 6.13 only updates post tags, from a workqueue once this
		// task's next enter has dropped its cached references: release
		// every slot, submit a NOP and reap nothing until the CQ overflows.
		for i := 0; i < n; i++ {
			require.NoError(t, bufs.Update(i, nil))
		}
		queue(t, r, fenceUD, func(s *sys.SQE) error { sqe.Nop(s); return nil })
		submit(t, r)
		extra = 1
		for deadline := time.Now().Add(10 * time.Second); r.SQFlags()&sys.SQCQOverflow == 0; {
			require.True(t, time.Now().Before(deadline), "no overflow in 10 s")
			_, err := r.WaitCQEs(r.CQEntries()) // returns once the CQ is full
			require.NoError(t, err)
			if r.SQFlags()&sys.SQCQOverflow == 0 {
				time.Sleep(time.Millisecond) // the rest are being posted
			}
		}
	}
	require.NotZero(t, r.SQFlags()&sys.SQCQOverflow, "more tag CQEs than CQ entries")
	got := waitN(t, r, n+extra)
	for _, tag := range tags {
		require.Equal(t, sys.CQE{UserData: tag}, got[tag])
	}
	if !syncTags(t) {
		require.NoError(t, bufs.Unregister())
	}
	noCQE(t, r)
	require.Zero(t, r.SQFlags()&sys.SQCQOverflow)
	require.Zero(t, r.Overflow())
}

// A clone shares the memory but not the tags: the original's tags are
// posted when the original releases its slots, the clone posts none.
func TestBufferTagsClone(t *testing.T) {
	src := newRing(t, 8)
	dst := newRing(t, 8)
	bufs := registerTagged(t, src, reg.BufferConfig{Count: 2, Size: 64, Tags: []uint64{0x5000, 0x5001}})
	clone, err := bufs.Clone(dst, false)
	requireRegister(t, err, sys.RegisterCloneBuffers)
	if !syncTags(t) {
		// 6.12: Unregister posts no tags; updates do, the clone's none.
		require.NoError(t, bufs.Update(0, nil))
		require.Empty(t, awaitTag(t, src, 0x5000))
		require.NoError(t, clone.Update(1, nil))
		require.Empty(t, settle(t, dst, false))
		require.NoError(t, bufs.Unregister())
		require.NoError(t, clone.Unregister())
		require.Empty(t, settle(t, src, false))
		return
	}
	require.NoError(t, bufs.Unregister())
	require.ElementsMatch(t, tagCQEs(0x5000, 0x5001), fence(t, src))
	require.Empty(t, fence(t, dst))
	require.NoError(t, clone.Unregister())
	require.Empty(t, fence(t, dst))
	require.Empty(t, fence(t, src))
}
