//go:build linux

package reg_test

import (
	"errors"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/internal/udata"
	"github.com/pure-uring/uring/reg"
	"github.com/pure-uring/uring/sys"
)

// The tests here pin that reg never reaches a ring by an fd number it read
// before a call that may have let the ring close: by then the number may
// name another ring (or file), as reuseFd makes it do.

// reuseFd makes fd, the number of a ring closed since, name the ring
// other (dup2 onto it), as a ring or file created after the close would
// get it; the dup is closed at the end of the test.
func reuseFd(t *testing.T, fd int, other *uring.Ring) {
	t.Helper()
	require.GreaterOrEqual(t, fd, 0)
	require.NoError(t, unix.Dup2(other.Fd(), fd))
	t.Cleanup(func() { unix.Close(fd) })
}

// closingTarget is a ring whose first UseTarget, after its call returned,
// closes the ring and makes its old fd number name the ring other: what a
// Close on one goroutine and a New on another can do between two calls
// that reach the ring, one guarded and one by the number read before.
type closingTarget struct {
	*uring.Ring
	t     *testing.T
	other *uring.Ring
	done  bool
}

func (c *closingTarget) UseTarget(fn func(fd int, flag sys.RegisterOp) error) error {
	err := c.Ring.UseTarget(fn)
	if !c.done {
		c.done = true
		fd := c.Ring.Fd()
		require.NoError(c.t, c.Ring.Close())
		reuseFd(c.t, fd, c.other)
	}
	return err
}

// A kernel-mapped buffer ring is mapped through the fd it was registered
// through, in the same guarded call: not through a number that, once the
// register returned, a Close and a New could have given another ring,
// whose buffer ring of the same group it would map.
func TestRegisterBufRingMapsItsOwnRing(t *testing.T) {
	testutil.Require(t, uring.CheckCapability(uring.CapBufRingMmap))
	other := newRing(t, 4)
	theirs, err := reg.RegisterBufRing(other, reg.BufRingConfig{Group: 3, Entries: 4})
	require.NoError(t, err)
	defer func() { require.NoError(t, theirs.Unregister()) }()
	buf := make([]byte, 64)
	require.NoError(t, theirs.Add(buf, 7, 0))
	theirs.Advance(1)
	require.False(t, allZero(reg.BufRingMemory(theirs)), "other's ring has an entry")

	tgt := &closingTarget{Ring: newRing(t, 4), t: t, other: other}
	ours, err := reg.RegisterBufRing(tgt, reg.BufRingConfig{Group: 3, Entries: 4})
	require.NoError(t, err, "registered and mapped before the Close")
	require.True(t, tgt.done)
	mem := reg.BufRingMemory(ours)
	require.True(t, allZero(mem), "the new ring's own (empty) entries, not other's: % x", mem)
	require.NoError(t, ours.Unregister(), "after the ring's Close it only unmaps")

	// Once closed, the ring maps nothing (the number names other now).
	_, err = reg.RegisterBufRing(tgt, reg.BufRingConfig{Group: 5, Entries: 4})
	require.ErrorIs(t, err, uring.ErrClosed)
	five, err := reg.RegisterBufRing(other, reg.BufRingConfig{Group: 5, Entries: 4})
	require.NoError(t, err, "nothing was registered on other for group 5")
	require.NoError(t, five.Unregister())
}

// A kernel region likewise: mapped through the fd it was registered
// through, not another ring's region at the same offset.
func TestRegisterRegionMapsItsOwnRing(t *testing.T) {
	testutil.Require(t, uring.CheckRegisterOp(sys.RegisterMemRegion))
	other := newRing(t, 4)
	theirs, err := reg.RegisterRegion(other, reg.RegionConfig{Size: 4096, Kernel: true})
	require.NoError(t, err)
	copy(theirs.Memory(), "other's region")

	tgt := &closingTarget{Ring: newRing(t, 4), t: t, other: other}
	ours, err := reg.RegisterRegion(tgt, reg.RegionConfig{Size: 4096, Kernel: true})
	require.NoError(t, err, "registered and mapped before the Close")
	require.True(t, tgt.done)
	mem := ours.Memory()
	require.Len(t, mem, 4096)
	require.True(t, allZero(mem), "the new ring's own (zeroed) region, not other's: starts %q", mem[:16])
	require.NoError(t, ours.Free())

	_, err = reg.RegisterRegion(tgt, reg.RegionConfig{Size: 4096, Kernel: true})
	require.ErrorIs(t, err, uring.ErrClosed)
	require.NoError(t, other.Close())
	require.NoError(t, theirs.Free())
}

// A clone names its source ring while that ring is held open: after the
// source's Close, whose fd number now names another ring, Clone and
// CloneRange fail with ErrClosed instead of cloning that ring's buffers.
func TestCloneSourceClosed(t *testing.T) {
	testutil.Require(t, uring.CheckRegisterOp(sys.RegisterCloneBuffers))
	src := newRing(t, 4)
	other := newRing(t, 4)
	dst := newRing(t, 4)
	bufs, err := reg.RegisterBuffers(src, reg.BufferConfig{Count: 2, Size: 4096})
	require.NoError(t, err)
	_, err = reg.RegisterBuffers(other, reg.BufferConfig{Count: 3, Size: 4096})
	require.NoError(t, err)

	fd := src.Fd()
	require.NoError(t, src.Close())
	reuseFd(t, fd, other)

	_, err = bufs.Clone(dst, false)
	require.ErrorIs(t, err, uring.ErrClosed)
	_, err = bufs.CloneRange(dst, 0, 0, 1)
	require.ErrorIs(t, err, uring.ErrClosed)
	// dst got no table: one of its own registers (EBUSY otherwise).
	own, err := reg.RegisterBuffers(dst, reg.BufferConfig{Count: 1, Size: 4096})
	require.NoError(t, err, "nothing was cloned onto dst")
	require.ErrorIs(t, bufs.CloneRangeInto(own, 0, 0, 1), uring.ErrClosed)
	require.NoError(t, bufs.Unregister())
}

// The source's hold spans the destination's call without either waiting
// for the other: a clone onto its own ring, clones both ways at once, and
// a Close of the source under a loop of clones all return.
func TestCloneHoldsNoLock(t *testing.T) {
	testutil.Require(t, uring.CheckRegisterOp(sys.RegisterCloneBuffers))
	a := newRing(t, 4)
	b := newRing(t, 4)
	ba, err := reg.RegisterBuffers(a, reg.BufferConfig{Count: 2, Size: 4096})
	require.NoError(t, err)
	bb, err := reg.RegisterBuffers(b, reg.BufferConfig{Count: 2, Size: 4096})
	require.NoError(t, err)

	// Onto its own ring: the kernel answers (a table is there).
	_, err = ba.Clone(a, false)
	require.ErrorIs(t, err, unix.EBUSY)
	err = ba.CloneRangeInto(ba, 1, 0, 1)
	if errors.Is(err, uring.ErrUnsupported) {
		testutil.Require(t, err) // IORING_REGISTER_DST_REPLACE, 6.13
	}
	require.NoError(t, err)
	require.Same(t, &ba.Buf(0)[0], &ba.Buf(1)[0], "slot 1 is slot 0's buffer now")

	// Both ways at once.
	const rounds = 200
	var clones []*reg.Buffers
	errs := make(chan error, 2)
	results := make(chan []*reg.Buffers, 2)
	for _, p := range [][2]any{{ba, b}, {bb, a}} {
		from, to := p[0].(*reg.Buffers), p[1].(*uring.Ring)
		go func() {
			var got []*reg.Buffers
			for i := 0; i < rounds; i++ {
				c, err := from.Clone(to, true)
				if err != nil {
					results <- got
					errs <- err
					return
				}
				got = append(got, c)
			}
			results <- got
			errs <- nil
		}()
	}
	for i := 0; i < 2; i++ {
		select {
		case got := <-results:
			clones = append(clones, got...)
			require.NoError(t, <-errs)
		case <-time.After(time.Minute):
			t.Fatal("clones both ways did not return: deadlock")
		}
	}

	// The source closes under a loop of clones: the loop ends with
	// ErrClosed, and Close returns.
	started := make(chan struct{})
	go func() {
		var got []*reg.Buffers
		for i := 0; ; i++ {
			c, err := ba.Clone(b, true)
			if i == 0 {
				close(started)
			}
			if err != nil {
				results <- got
				errs <- err
				return
			}
			got = append(got, c)
		}
	}()
	<-started
	closed := make(chan error, 1)
	go func() { closed <- a.Close() }()
	select {
	case got := <-results:
		clones = append(clones, got...)
		require.ErrorIs(t, <-errs, uring.ErrClosed)
	case <-time.After(time.Minute):
		t.Fatal("a clone loop did not end after the source's Close: deadlock")
	}
	require.NoError(t, <-closed)

	require.NoError(t, b.Close())
	for _, c := range append(clones, ba, bb) {
		require.NoError(t, c.Unregister())
	}
}

// embeddedRing is a target that embeds a *uring.Ring: a GuardedTarget,
// but not a *uring.Ring.
type embeddedRing struct{ *uring.Ring }

// SendMsgRing holds a ring that comes embedded in another type open for
// the call, as it holds a *uring.Ring: after the ring's Close, whose fd
// number now names another ring, it fails with ErrClosed and posts
// nothing there.
func TestSendMsgRingEmbeddedRing(t *testing.T) {
	testutil.Require(t, uring.CheckRegisterOp(sys.RegisterSendMsgRing))
	r := newRing(t, 4)
	other := newRing(t, 4)
	require.NoError(t, reg.SendMsgRing(embeddedRing{r}, 5, 6, 0, 0))
	c := wait(t, r)
	require.Equal(t, uint64(5), c.UserData)
	require.Equal(t, int32(6), c.Res)

	fd := r.Fd()
	require.NoError(t, r.Close())
	reuseFd(t, fd, other)
	require.ErrorIs(t, reg.SendMsgRing(embeddedRing{r}, 7, 8, 0, 0), uring.ErrClosed)
	noCQE(t, other)
}

// A failed submit leaves StartIOWorkers' SQEs queued (a disabled ring
// refuses io_uring_enter): the eventfd their read names stays open, so
// when a later submit sends them, the read reads that eventfd (EINVAL
// for an empty read), not whatever file got the number in between.
func TestStartIOWorkersQueuedReadKeepsEventfd(t *testing.T) {
	r := newRing(t, 4, uring.WithDisabled())
	before := eventfds(t)
	err := reg.StartIOWorkers(r)
	require.ErrorIs(t, err, unix.EBADFD)
	require.Equal(t, uint32(2), r.SQReady(), "the NOP and the read stay queued")

	// Files opened now get the lowest free numbers: with the eventfd
	// closed, its own.
	_, wr := pipe(t)
	_, err = unix.Write(wr, []byte("x"))
	require.NoError(t, err)

	require.NoError(t, r.Enable())
	submit(t, r)
	cqes := waitN(t, r, 2)
	read, ok := cqes[udata.IOWorkersUnbound]
	require.True(t, ok)
	require.Equal(t, -int32(unix.EINVAL), read.Res, "the read reached the eventfd, not a stale number (%v)", unix.Errno(-read.Res))

	// The read is done: close the eventfd StartIOWorkers left open.
	var left []int
	for fd := range eventfds(t) {
		if !before[fd] {
			left = append(left, fd)
		}
	}
	require.Len(t, left, 1, "StartIOWorkers left its eventfd open")
	require.NoError(t, unix.Close(left[0]))
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// eventfds returns the process's open eventfds.
func eventfds(t *testing.T) map[int]bool {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	m := map[int]bool{}
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		require.NoError(t, err)
		if link, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && link == "anon_inode:[eventfd]" {
			m[fd] = true
		}
	}
	return m
}
