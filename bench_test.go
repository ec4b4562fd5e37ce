//go:build linux

package uring_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/internal/testutil"
	"github.com/pure-uring/uring/sys"
)

// BenchmarkNop submits NOPs in batches of 1, 8, 32 and 128 per enter and
// reaps each batch; ns/op is per NOP. Compare with the C liburing anchor in
// BENCHMARKS.md (182, 63, 50, 46.5 ns/op).
func BenchmarkNop(b *testing.B) {
	for _, batch := range []int{1, 8, 32, 128} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			r, err := uring.New(128)
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			benchNops(b, r, batch)
		})
	}
}

// benchNops submits b.N NOPs on r in batches of batch, reaping each.
func benchNops(b *testing.B, r *uring.Ring, batch int) {
	cqes := make([]sys.CQE, 128)
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; done += batch {
		for i := 0; i < batch; i++ {
			s, _ := r.GetSQE()
			s.Opcode = sys.OpNop
		}
		if _, err := r.SubmitAndWait(uint32(batch)); err != nil {
			b.Fatal(err)
		}
		for got := 0; got < batch; {
			got += r.Reap(cqes)
		}
	}
}

// BenchmarkNopRegisteredRing is BenchmarkNop on a WithRegisteredRingFd
// ring, entered through its registered index from the registering thread
// (batches of 1 and 8): what the index saves, and what checking the
// calling thread costs.
func BenchmarkNopRegisteredRing(b *testing.B) {
	for _, batch := range []int{1, 8} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			testutil.Require(b, uring.CheckRegisterOp(sys.RegisterRingFds))
			runtime.LockOSThread() // the index belongs to this thread
			defer runtime.UnlockOSThread()
			r, err := uring.New(128, uring.WithRegisteredRingFd())
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			benchNops(b, r, batch)
		})
	}
}
