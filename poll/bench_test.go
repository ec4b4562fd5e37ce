//go:build linux

package poll

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
)

// Benchmarks: each loop figure has its baseline in the same run (the raw
// Ring doing the same work on a locked thread; a Go channel round trip).
// BENCH.md has the table.

const benchFileSize = 1 << 20

// noThreadCheck turns off the per-call tid check of test builds.
func noThreadCheck(b *testing.B) {
	old := checkThread
	checkThread = false
	b.Cleanup(func() { checkThread = old })
}

// benchFile is a 1 MiB file in the page cache.
func benchFile(b *testing.B) *os.File {
	path := filepath.Join(b.TempDir(), "data")
	require.NoError(b, os.WriteFile(path, make([]byte, benchFileSize), 0o600))
	f, err := os.Open(path)
	require.NoError(b, err)
	b.Cleanup(func() { f.Close() })
	_, err = f.ReadAt(make([]byte, benchFileSize), 0) // warm
	require.NoError(b, err)
	return f
}

// benchOp is one operation slot of the benchmark driver: a NOP or a 4 KiB
// read at a rotating offset. The buffer is out of line (made on the first
// read), so that NOP runs touch a few small structs, as the raw loop does.
type benchOp struct {
	d   *benchDriver
	buf *[4096]byte
	off int64
}

func (o *benchOp) Prep(s *sys.SQE) error {
	if o.d.fd < 0 {
		*s = sys.SQE{Opcode: sys.OpNop, Fd: -1}
		return nil
	}
	if o.buf == nil {
		o.buf = new([4096]byte)
	}
	*s = sys.SQE{Opcode: sys.OpRead, Fd: int32(o.d.fd), Addr: sys.SliceAddr(o.buf[:]), Len: 4096, Off: uint64(o.off)}
	return nil
}

func (o *benchOp) Handle(c *sys.CQE) {
	d := o.d
	if c.Res < 0 || (d.fd >= 0 && c.Res != 4096) {
		d.bad++
	}
	d.outstanding--
	if d.outstanding == 0 {
		d.batch()
	}
}

type benchDriver struct {
	l           *Loop
	fd          int
	ops         []benchOp
	left        int
	outstanding int
	next        int64
	bad         int
	done        chan struct{}
	markAt      int // count harness: call countMark when left is markAt, and at 0
}

func (d *benchDriver) batch() {
	if d.markAt > 0 && (d.left == d.markAt || d.left == 0) {
		countMark()
	}
	if d.left == 0 {
		d.done <- struct{}{}
		return
	}
	k := min(len(d.ops), d.left)
	for i := 0; i < k; i++ {
		o := &d.ops[i]
		if d.fd >= 0 {
			o.off = d.next
			d.next = (d.next + 4096) % benchFileSize
		}
		if _, err := d.l.Start(o); err != nil {
			d.bad++
		}
	}
	d.left -= k
	d.outstanding = k
}

var batches = []int{1, 8, 32, 128}

func benchStrategies() []Strategy { return []Strategy{Block, Park, Spin, Hybrid, SQPoll, IOPoll} }

func BenchmarkNop(b *testing.B)  { benchOps(b, false) }
func BenchmarkRead(b *testing.B) { benchOps(b, true) }

// benchOps: N operations in batches of 1..128, each batch submitted in one
// enter and reaped before the next; the raw Ring first, then each strategy.
func benchOps(b *testing.B, read bool) {
	noThreadCheck(b)
	fd := -1
	if read {
		fd = rawFd(b, benchFile(b))
	}
	for _, batch := range batches {
		for _, st := range []Strategy{Block, SQPoll, IOPoll} {
			if read && st == IOPoll {
				continue
			}
			b.Run(fmt.Sprintf("raw-%v/batch=%d", st, batch), func(b *testing.B) { benchRaw(b, fd, batch, st) })
		}
		if !read {
			b.Run(fmt.Sprintf("PrepBatch-park/batch=%d", batch), func(b *testing.B) {
				l := newLoop(b)
				d := &batchNops{l: l, n: batch, done: make(chan struct{}, 1)}
				require.NoError(b, d.run(1000)) // warm up
				b.ResetTimer()
				require.NoError(b, d.run(b.N))
				b.StopTimer()
				require.Zero(b, d.bad)
			})
		}
		for _, st := range benchStrategies() {
			if read && st == IOPoll {
				continue // buffered reads are not pollable
			}
			b.Run(fmt.Sprintf("%v/batch=%d", st, batch), func(b *testing.B) {
				l := newLoop(b, WithStrategy(st))
				d := &benchDriver{l: l, fd: fd, ops: make([]benchOp, batch), done: make(chan struct{}, 1)}
				for i := range d.ops {
					d.ops[i].d = d
				}
				d.left = 1000 // warm up
				require.NoError(b, l.Run(d.batch))
				<-d.done
				d.left = b.N
				b.ResetTimer()
				require.NoError(b, l.Run(d.batch))
				<-d.done
				b.StopTimer()
				require.Zero(b, d.bad)
			})
		}
	}
}

// benchRaw drives the Ring directly on a locked thread, with the ring
// options of a loop of strategy st (raw-block's serve Block, Spin, Hybrid).
func benchRaw(b *testing.B, fd, batch int, st Strategy) {
	done := make(chan error)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		done <- rawLoop(b, fd, batch, st)
	}()
	require.NoError(b, <-done)
}

func rawLoop(b *testing.B, fd, batch int, st Strategy) error {
	r, err := rawRing(WithStrategy(st))
	if err != nil {
		return err
	}
	defer r.Close()
	cqes := make([]sys.CQE, 256)
	b.ResetTimer()
	err = rawOps(r, fd, batch, b.N, cqes)
	b.StopTimer()
	return err
}

// BenchmarkRoundTrip: Do(NOP) from another goroutine, waiting each time,
// against a Go channel round trip to a server goroutine.
func BenchmarkRoundTrip(b *testing.B) {
	noThreadCheck(b)
	b.Run("chan", func(b *testing.B) {
		req, resp := make(chan int), make(chan int)
		go func() {
			for v := range req {
				resp <- v
			}
		}()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			req <- i
			<-resp
		}
		b.StopTimer()
		close(req)
	})
	// The same to a server goroutine locked to its thread, as the loop is:
	// every hand-off wakes a thread.
	b.Run("chan-locked", func(b *testing.B) {
		req, resp := make(chan int), make(chan int)
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			for v := range req {
				resp <- v
			}
		}()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			req <- i
			<-resp
		}
		b.StopTimer()
		close(req)
	})
	for _, st := range benchStrategies() {
		b.Run(st.String(), func(b *testing.B) {
			l := newLoop(b, WithStrategy(st))
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := l.Do(ctx, prepNop); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRoundTripWaiting: Do(NOP) from another goroutine to a loop that
// waits for a pipe read between the calls, so every Do has to wake it
// from its wait: Block's MSG_RING kick into io_uring_enter against Park's
// eventfd write into the netpoller. Run with -cpu 1,2.
func BenchmarkRoundTripWaiting(b *testing.B) {
	noThreadCheck(b)
	for _, st := range []Strategy{Block, Park} {
		b.Run(st.String(), func(b *testing.B) {
			l := newLoop(b, WithStrategy(st), WithWaitTimeout(time.Minute))
			fd, w := pipe(b)
			buf := make([]byte, 8)
			got := make(chan struct{}, 1)
			require.NoError(b, l.Go(prepRead(fd, buf), func(Result, error) { got <- struct{}{} }))
			ctx := context.Background()
			for l.Stats().InFlight == 0 {
				time.Sleep(time.Millisecond)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := l.Do(ctx, prepNop); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			_, err := w.Write([]byte{1})
			require.NoError(b, err)
			<-got
		})
	}
}

// BenchmarkSharedNop: 16 goroutines each doing Do(NOP) on one Shared (each
// a wake of the goroutine by the reaper's thread), beside as many doing a
// round trip through a channel to a server goroutine.
func BenchmarkSharedNop(b *testing.B) {
	const goroutines = 16
	par := max(1, goroutines/runtime.GOMAXPROCS(0))
	b.Run("shared", func(b *testing.B) {
		s, err := NewShared(64)
		require.NoError(b, err)
		defer s.Close()
		b.SetParallelism(par)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, _, err := s.Do(nopPrep, nil); err != nil {
					panic(err)
				}
			}
		})
	})
	b.Run("channel", func(b *testing.B) {
		req := make(chan chan struct{}, goroutines)
		go func() {
			for c := range req {
				c <- struct{}{}
			}
		}()
		defer close(req)
		b.SetParallelism(par)
		b.RunParallel(func(pb *testing.PB) {
			reply := make(chan struct{})
			for pb.Next() {
				req <- reply
				<-reply
			}
		})
	})
}
