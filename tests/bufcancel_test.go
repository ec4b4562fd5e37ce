//go:build linux

package tests

import (
	"context"
	"errors"
	"fmt"
	"github.com/pure-uring/uring/tests/ringtest"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/reg"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/pure-uring/uring/task"
)

// TestCancelRacingBufferSelectRead: a read that selects its buffer from a
// provided-buffer pool, a cancel and a write, in random orders, 100 k times:
// each round has one outcome; a completed read hands out exactly one buffer
// holding the byte, which goes back once (a second Put is refused and
// changes nothing); a cancelled one leaves the byte in the pipe and hands
// out no buffer from a buffer ring, and from PROVIDE_BUFFERS either none
// or the buffer it took, empty (see below), which goes back the same way;
// no buffer is lost. At the end no buffer is
// out and all of them can be handed out. Once for each way a pool reaches
// the kernel: a kernel-mapped buffer ring (6.4), a user-mapped one (5.19),
// PROVIDE_BUFFERS SQEs on the same ring (5.7).
// requireCancelKeepsProvided skips the PROVIDE_BUFFERS runs on kernels
// before 6.1: seen on 5.10, a buffer-select read cancelled after it took
// a PROVIDE_BUFFERS buffer frees that buffer inside the kernel and
// reports none (no F_BUFFER in its CQE), so the group shrinks until it
// runs dry; nothing a library can recover without risking a buffer handed
// out twice. Buffer rings (5.19) do not lose buffers.
func requireCancelKeepsProvided(t *testing.T, mech reg.PoolMechanism) {
	t.Helper()
	if mech != reg.PoolProvideBuffers {
		return
	}
	if ok, err := uring.KernelAtLeast("6.1"); err == nil && !ok {
		testutil.Require(t, &uring.UnsupportedError{Feature: "a cancelled buffer-select read keeping its PROVIDE_BUFFERS buffer",
			MinimumVersion: "6.1", Kernel: uring.KernelRelease(), Err: unix.ENOBUFS})
	}
}

func TestCancelRacingBufferSelectRead(t *testing.T) {
	for _, m := range poolMechanisms() {
		t.Run(strings.Fields(m.mech.String())[0], func(t *testing.T) {
			testutil.Require(t, m.needs)
			requireCancelKeepsProvided(t, m.mech)
			cancelRacingBufferSelectRead(t, m.mech)
		})
	}
}

// poolMechanisms lists the ways a BufPool reaches the kernel, each with
// its probe's answer.
func poolMechanisms() []struct {
	mech  reg.PoolMechanism
	needs error
} {
	return []struct {
		mech  reg.PoolMechanism
		needs error
	}{
		{reg.PoolKernelRing, uring.CheckCapability(uring.CapBufRingMmap)},
		{reg.PoolUserRing, uring.CheckCapability(uring.CapBufRing)},
		{reg.PoolProvideBuffers, uring.CheckOp(sys.OpProvideBuffers)},
	}
}

func cancelRacingBufferSelectRead(t *testing.T, mech reg.PoolMechanism) {
	rounds := scale(100000, 20000, 1000000)
	const group, nbufs = 7, 4
	r := ringtest.New(t, 8)
	pool, err := reg.NewBufPool(r, reg.PoolConfig{Group: group, Count: nbufs, Size: 8, Mechanism: mech})
	require.NoError(t, err)
	defer func() { require.NoError(t, pool.Close()) }()
	require.Equal(t, mech, pool.Mechanism())
	// A read takes a PROVIDE_BUFFERS buffer off the group's list when it is
	// first issued. Waiting for data, it gives the buffer back to the list
	// (6.1), or keeps it (6.12, 6.18) and a cancel completes it with that
	// buffer, 0 bytes, F_BUFFER set: Take it and Put it back. A buffer
	// ring's head moves only when data is read: a cancel never holds one.
	cancelMayHoldBuffer := mech == reg.PoolProvideBuffers
	pr, pw := rawPipe(t, 0)
	rng := rand.New(rand.NewPCG(5, 6))
	wb := make([]byte, 1)
	race := &cancelRace{t: t, r: r, rng: rng, pw: pw, wb: wb, cqes: make([]sys.CQE, 4),
		read: func(s *sys.SQE) error {
			if err := sqe.ReadSelect(s, pr, 0, -1, group); err != nil {
				return err
			}
			pool.Select(s) // a length of 0 is the whole buffer: Select writes 8 before 5.19
			return nil
		}}
	var outcomes [2]int
	cancelledWithBuffer := 0
	used := make([]int, nbufs)
	for i := 0; i < rounds; i++ {
		wb[0] = byte(i)
		m := race.round(i)
		rd := m[1]
		switch rd.Res {
		case 1:
			bid, data, err := pool.Take(rd.Res, sys.CQEFlags(rd.Flags))
			if err != nil || len(data) != 1 || data[0] != byte(i) {
				t.Fatalf("round %d: completed read's buffer: bid %d %v %v", i, bid, data, err)
			}
			if pool.Out() != 1 {
				t.Fatalf("round %d: %d buffers out after one read", i, pool.Out())
			}
			used[bid]++
			if err := pool.Put(bid); err != nil {
				t.Fatalf("round %d: Put(%d): %v", i, bid, err)
			}
			if err := pool.Put(bid); err == nil || pool.Out() != 0 {
				t.Fatalf("round %d: a second Put(%d) was accepted (out %d)", i, bid, pool.Out())
			}
			outcomes[0]++
		case -int32(unix.ECANCELED):
			if sys.CQEFlags(rd.Flags)&sys.CQEFBuffer != 0 {
				if !cancelMayHoldBuffer {
					t.Fatalf("round %d: a cancelled read took buffer %d", i, rd.Flags>>sys.CQEBufferShift)
				}
				bid, data, err := pool.Take(rd.Res, sys.CQEFlags(rd.Flags))
				if err != nil || len(data) != 0 || pool.Out() != 1 {
					t.Fatalf("round %d: the buffer of a cancelled read: bid %d %v %v (out %d)", i, bid, data, err, pool.Out())
				}
				if err := pool.Put(bid); err != nil {
					t.Fatalf("round %d: Put(%d): %v", i, bid, err)
				}
				cancelledWithBuffer++
			} else if _, _, err := pool.Take(rd.Res, sys.CQEFlags(rd.Flags)); err == nil || pool.Out() != 0 {
				t.Fatalf("round %d: Take handed out a buffer for a cancelled read (out %d)", i, pool.Out())
			}
			b := make([]byte, 1)
			if n, err := unix.Read(pr, b); err != nil || n != 1 || b[0] != byte(i) {
				t.Fatalf("round %d: the byte a cancelled read left: %d %v %d", i, n, err, b[0])
			}
			outcomes[1]++
		case -int32(unix.ENOBUFS):
			t.Fatalf("round %d: the group ran dry with %d of %d buffers out: the kernel lost buffers (after %d cancelled reads, %d of them handing theirs back)",
				i, pool.Out(), nbufs, outcomes[1], cancelledWithBuffer)
		default:
			t.Fatalf("round %d: read res %d", i, rd.Res)
		}
	}
	t.Logf("%d rounds: %d completed, %d cancelled (%d of them holding a buffer); buffer uses %v",
		rounds, outcomes[0], outcomes[1], cancelledWithBuffer, used)
	require.NotZero(t, outcomes[0])
	require.NotZero(t, outcomes[1])
	require.Zero(t, pool.Out())
	for bid, n := range used {
		require.NotZero(t, n, "buffer %d never handed out: the ring lost it", bid)
	}

	// Every buffer is still in the ring: nbufs reads get nbufs distinct ids.
	for k := 0; k < nbufs; k++ {
		race.put(uint64(10+k), race.read)
	}
	race.submit()
	seen := map[uint16]bool{}
	for write := true; len(seen) < nbufs; {
		if write { // one byte per read
			_, err = unix.Write(pw, []byte{1})
			require.NoError(t, err)
		}
		c, err := r.WaitCQETimeout(5 * time.Second)
		require.NoError(t, err, "%d of %d reads completed", len(seen), nbufs)
		ud, res, flags := c.UserData, c.Res, sys.CQEFlags(c.Flags)
		r.CQESeen(c)
		if write = ud != reg.InternalUserData; !write { // the pool's PROVIDE_BUFFERS (before 5.19)
			require.GreaterOrEqual(t, res, int32(0), "PROVIDE_BUFFERS")
			continue
		}
		require.Equal(t, int32(1), res)
		bid, _, err := pool.Take(res, flags)
		require.NoError(t, err)
		require.False(t, seen[bid], "buffer %d handed out twice", bid)
		seen[bid] = true
	}
	for bid := range seen {
		require.NoError(t, pool.Put(bid))
	}
}

// TestCancelRacingMultishotBuffers: a task reads a pipe with a multishot
// read into a provided-buffer pool while its context is cancelled (or its
// loop breaks) at a random point among the writes, 100 k rounds: every
// buffer the iterator took goes back exactly once (none out after the
// loop, the pool can still hand out each), and no byte is lost or
// reordered: what the loop saw plus what the task then reads from the
// pipe (the bytes the kernel read after the loop ended first: the executor
// keeps them for the fd) is what was written. Once per pool mechanism the
// kernel has (see TestCancelRacingBufferSelectRead), with DEFER_TASKRUN
// (where the cancel, submitted before the deferred read runs, mostly wins)
// and without it (the read runs as the data arrives: the kernel often
// reads after the loop ended); before READ_MULTISHOT (6.7) the iterator
// re-arms one-shot reads, with the same buffer rules.
func TestCancelRacingMultishotBuffers(t *testing.T) {
	for _, m := range poolMechanisms() {
		for _, deferred := range []bool{true, false} {
			name := strings.Fields(m.mech.String())[0] + map[bool]string{true: "/defer-taskrun", false: "/eager-taskrun"}[deferred]
			t.Run(name, func(t *testing.T) {
				testutil.Require(t, m.needs)
				requireCancelKeepsProvided(t, m.mech)
				var opts []task.Option
				if !deferred {
					opts = append(opts, task.WithoutDeferTaskrun())
				}
				cancelRacingMultishotBuffers(t, m.mech, opts...)
			})
		}
	}
}

func cancelRacingMultishotBuffers(t *testing.T, mech reg.PoolMechanism, opts ...task.Option) {
	rounds := scale(50000, 10000, 500000)
	ex, err := task.NewExecutor(opts...)
	require.NoError(t, err)
	closeAtEnd(t, "Executor", ex.Close)
	pr, pw := rawPipe(t, unix.O_NONBLOCK)
	var outcomes [2]int // loops ended by the cancel, by a break
	var progress atomic.Int64
	_, err = runTaskWatched(t, ex, &progress, func(tk *task.T) (struct{}, error) {
		pool, err := reg.NewBufPool(tk.Executor().Ring(), reg.PoolConfig{Group: 9, Count: 4, Size: 16, Mechanism: mech})
		if err != nil {
			return struct{}{}, err
		}
		defer pool.Close()
		rng := rand.New(rand.NewPCG(7, 8))
		var seen, left []byte
		for i := 0; i < rounds; i++ {
			progress.Add(1)
			seen, left = seen[:0], left[:0]
			writes := 1 + rng.IntN(4)
			stopAfter := rng.IntN(writes + 1) // writes before the cancel
			breakAt := -1
			if rng.IntN(4) == 0 {
				breakAt = rng.IntN(writes) // the body breaks at its breakAt-th yield
			}
			ctx, cancel := context.WithCancel(tk.Context())
			h := task.SpawnContext(ctx, tk, func(tk *task.T) (int, error) {
				yields := 0
				for b, err := range tk.ReadMultishot(pr, pool) {
					if err != nil {
						return 0, err
					}
					seen = append(seen, b...)
					if yields == breakAt {
						return 1, nil
					}
					yields++
				}
				return 2, nil
			})
			tk.Yield() // the read is armed
			for w := 0; w < writes; w++ {
				if w == stopAfter {
					cancel()
				}
				if _, err := unix.Write(pw, []byte{byte(i), byte(w)}); err != nil {
					cancel()
					return struct{}{}, err
				}
				if rng.IntN(2) == 0 {
					tk.Yield()
				}
			}
			cancel()
			how, err := h.Join(tk)
			switch {
			case errors.Is(err, context.Canceled):
				outcomes[0]++
			case err == nil && how == 1:
				outcomes[1]++
			default:
				return struct{}{}, fmt.Errorf("round %d: loop ended with %d, %v", i, how, err)
			}
			if pool.Out() != 0 {
				return struct{}{}, fmt.Errorf("round %d: %d buffers still out after the loop", i, pool.Out())
			}
			// The rest through the executor, up to a sentinel pair no round
			// writes (its second byte is never a write index): kept bytes
			// first, in pieces (b is shorter than a round's data).
			if _, err := unix.Write(pw, []byte{0xEE, 0xEE}); err != nil {
				return struct{}{}, err
			}
			b := make([]byte, 3)
			for len(left) < 2 || len(left)%2 != 0 || left[len(left)-1] != 0xEE || left[len(left)-2] != 0xEE {
				n, err := tk.Read(pr, b, task.CurrentPos)
				if err != nil {
					return struct{}{}, err
				}
				left = append(left, b[:n]...)
			}
			left = left[:len(left)-2]
			var want []byte
			for w := 0; w < writes; w++ {
				want = append(want, byte(i), byte(w))
			}
			if got := append(append([]byte{}, seen...), left...); string(got) != string(want) {
				return struct{}{}, fmt.Errorf("round %d: loop saw %v, then read %v, written %v", i, seen, left, want)
			}
		}
		// Every buffer is still in the ring: four reads take four ids.
		ids := map[uint16]bool{}
		for range 4 {
			if _, err := unix.Write(pw, []byte{1}); err != nil {
				return struct{}{}, err
			}
			res, flags, err := tk.Await(func(s *sys.SQE) { _ = sqe.ReadSelect(s, pr, 16, -1, 9) })
			if err != nil {
				return struct{}{}, err
			}
			bid, _, err := pool.Take(res, sys.CQEFlags(flags))
			if err != nil || ids[bid] {
				return struct{}{}, fmt.Errorf("buffer %d: %v (seen before: %v)", bid, err, ids[bid])
			}
			ids[bid] = true
		}
		for bid := range ids {
			if err := pool.Put(bid); err != nil {
				return struct{}{}, err
			}
		}
		return struct{}{}, nil
	})
	require.NoError(t, err)
	t.Logf("%d rounds: %d ended by cancel, %d by break", rounds, outcomes[0], outcomes[1])
	require.Equal(t, rounds, outcomes[0]+outcomes[1])
	require.NotZero(t, outcomes[0])
	require.NotZero(t, outcomes[1])
}
