//go:build linux

package task

import (
	"context"
	"os"
	"runtime"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sys"
)

// Each workload of BENCHMARKS.md ("Task layer") runs next to its baseline
// (sub-benchmarks "task" and "go"/"raw") so that the ratio comes from one run.

func benchTask(b *testing.B, fn func(t *T) error) {
	ex := newExec(b)
	b.ReportAllocs()
	b.ResetTimer()
	// A background context: no deadline, so no LINK_TIMEOUT per op.
	if _, err := Run(context.Background(), ex, func(t *T) (struct{}, error) { return struct{}{}, fn(t) }); err != nil {
		b.Fatal(err)
	}
}

func empty(*T) (struct{}, error) { return struct{}{}, nil }

func BenchmarkSpawn(b *testing.B) {
	b.Run("task", func(b *testing.B) {
		benchTask(b, func(t *T) error {
			const batch = 1024
			hs := make([]*Handle[struct{}], batch)
			for done := 0; done < b.N; done += batch {
				n := min(batch, b.N-done)
				for i := 0; i < n; i++ {
					hs[i] = Spawn(t, empty)
				}
				for i := 0; i < n; i++ {
					if _, err := hs[i].Join(t); err != nil {
						return err
					}
				}
			}
			return nil
		})
	})
	b.Run("task-one-by-one", func(b *testing.B) {
		benchTask(b, func(t *T) error {
			for i := 0; i < b.N; i++ {
				if _, err := Spawn(t, empty).Join(t); err != nil {
					return err
				}
			}
			return nil
		})
	})
	b.Run("go", func(b *testing.B) {
		b.ReportAllocs()
		var wg sync.WaitGroup
		for i := 0; i < b.N; i++ {
			wg.Add(1)
			go func() { wg.Done() }()
		}
		wg.Wait()
	})
}

func BenchmarkSwitch(b *testing.B) {
	b.Run("yield/task", func(b *testing.B) {
		benchTask(b, func(t *T) error {
			// A second task makes every Yield a real switch.
			other := Spawn(t, func(t *T) (struct{}, error) {
				for i := 0; i < b.N; i++ {
					t.Yield()
				}
				return struct{}{}, nil
			})
			for i := 0; i < b.N; i++ {
				t.Yield()
			}
			_, err := other.Join(t)
			return err
		})
	})
	b.Run("yield/go-gosched", func(b *testing.B) {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < b.N; i++ {
				runtime.Gosched()
			}
		}()
		for i := 0; i < b.N; i++ {
			runtime.Gosched()
		}
		wg.Wait()
	})
	b.Run("pingpong/task", func(b *testing.B) {
		benchTask(b, func(t *T) error {
			ping, pong := NewChan[int](t, 0), NewChan[int](t, 0)
			h := Spawn(t, func(t *T) (struct{}, error) {
				for {
					v, ok, err := ping.Recv(t)
					if err != nil || !ok {
						return struct{}{}, err
					}
					if err := pong.Send(t, v); err != nil {
						return struct{}{}, err
					}
				}
			})
			for i := 0; i < b.N; i++ {
				if err := ping.Send(t, i); err != nil {
					return err
				}
				if _, _, err := pong.Recv(t); err != nil {
					return err
				}
			}
			ping.Close()
			_, err := h.Join(t)
			return err
		})
	})
	b.Run("pingpong/go-chan", func(b *testing.B) {
		ping, pong := make(chan int), make(chan int)
		go func() {
			for v := range ping {
				pong <- v
			}
		}()
		for i := 0; i < b.N; i++ {
			ping <- i
			<-pong
		}
		close(ping)
	})
}

func BenchmarkChannel(b *testing.B) {
	b.Run("task", func(b *testing.B) {
		benchTask(b, func(t *T) error {
			c := NewChan[int](t, 1024)
			h := Spawn(t, func(t *T) (int, error) {
				s := 0
				for {
					v, ok, err := c.Recv(t)
					if err != nil || !ok {
						return s, err
					}
					s += v
				}
			})
			for i := 0; i < b.N; i++ {
				if err := c.Send(t, i); err != nil {
					return err
				}
			}
			c.Close()
			_, err := h.Join(t)
			return err
		})
	})
	b.Run("go", func(b *testing.B) {
		c := make(chan int, 1024)
		done := make(chan int)
		go func() {
			s := 0
			for v := range c {
				s += v
			}
			done <- s
		}()
		for i := 0; i < b.N; i++ {
			c <- i
		}
		close(c)
		<-done
	})
}

// chain is an awaited call chain: in this package a nested await is a
// plain call that takes the task handle (and may park inside).
//
//go:noinline
func chain(t *T, n int) int {
	if n == 0 {
		return 0
	}
	return n + chain(t, n-1)
}

//go:noinline
func plainChain(n int) int {
	if n == 0 {
		return 0
	}
	return n + plainChain(n-1)
}

func goChain(n int) int {
	if n == 0 {
		return 0
	}
	c := make(chan int)
	go func() { c <- goChain(n - 1) }()
	return n + <-c
}

func BenchmarkChain(b *testing.B) {
	const depth = 1000
	b.Run("task", func(b *testing.B) {
		benchTask(b, func(t *T) error {
			for i := 0; i < b.N; i++ {
				if chain(t, depth) != depth*(depth+1)/2 {
					b.Fatal("bad sum")
				}
			}
			return nil
		})
	})
	b.Run("task-spawn-per-level", func(b *testing.B) {
		var level func(t *T, n int) (int, error)
		level = func(t *T, n int) (int, error) {
			if n == 0 {
				return 0, nil
			}
			v, err := Spawn(t, func(t *T) (int, error) { return level(t, n-1) }).Join(t)
			return n + v, err
		}
		benchTask(b, func(t *T) error {
			for i := 0; i < b.N; i++ {
				if v, err := level(t, depth); err != nil || v != depth*(depth+1)/2 {
					b.Fatal("bad sum", err)
				}
			}
			return nil
		})
	})
	b.Run("plain", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if plainChain(depth) != depth*(depth+1)/2 {
				b.Fatal("bad sum")
			}
		}
	})
	b.Run("go-per-level", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			goChain(depth)
		}
	})
}

func BenchmarkCollect(b *testing.B) {
	const tasks, depth = 5000, 50
	b.Run("task", func(b *testing.B) {
		benchTask(b, func(t *T) error {
			hs := make([]*Handle[int], tasks)
			for i := 0; i < b.N; i++ {
				for j := range hs {
					hs[j] = Spawn(t, func(t *T) (int, error) { return chain(t, depth), nil })
				}
				for _, h := range hs {
					if _, err := h.Join(t); err != nil {
						return err
					}
				}
			}
			return nil
		})
	})
	b.Run("go", func(b *testing.B) {
		res := make([]int, tasks)
		for i := 0; i < b.N; i++ {
			var wg sync.WaitGroup
			wg.Add(tasks)
			for j := 0; j < tasks; j++ {
				go func() { res[j] = plainChain(depth); wg.Done() }()
			}
			wg.Wait()
		}
	})
}

func BenchmarkOverhead(b *testing.B) {
	b.Run("task", func(b *testing.B) {
		benchTask(b, func(t *T) error {
			for i := 0; i < b.N; i++ {
				if err := t.Nop(); err != nil {
					return err
				}
			}
			return nil
		})
	})
	b.Run("raw", func(b *testing.B) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		r, err := uring.New(1024, uring.WithCQSize(4096), uring.WithSingleIssuer(), uring.WithDeferTaskrun())
		if err != nil {
			b.Skip(err)
		}
		defer r.Close()
		cqes := make([]sys.CQE, 16)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			s, _ := r.GetSQE()
			s.Opcode, s.Fd, s.UserData = sys.OpNop, -1, uint64(i)
			if _, err := r.SubmitAndWait(1); err != nil {
				b.Fatal(err)
			}
			r.Reap(cqes)
		}
	})
}

// BenchmarkAwait times the awaits of the hot path, one task alone on its
// executor: a read of a cached file, a pipe write then read (two awaits),
// a socket send then recv (two awaits; the direct tries on io_uring).
func BenchmarkAwait(b *testing.B) {
	b.Run("read-file", func(b *testing.B) {
		f, err := os.CreateTemp(b.TempDir(), "read")
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		if _, err := f.Write(make([]byte, 4096)); err != nil {
			b.Fatal(err)
		}
		fd := int(f.Fd())
		benchTask(b, func(t *T) error {
			buf := make([]byte, 64)
			for i := 0; i < b.N; i++ {
				if n, err := t.Read(fd, buf, 0); err != nil || n != len(buf) {
					return errf("read: %d %v", n, err)
				}
			}
			return nil
		})
	})
	b.Run("pipe", func(b *testing.B) {
		r, w := pipe(b)
		benchTask(b, func(t *T) error {
			buf, msg := make([]byte, 8), []byte("x")
			for i := 0; i < b.N; i++ {
				if _, err := t.Write(w, msg, CurrentPos); err != nil {
					return err
				}
				if n, err := t.Read(r, buf, CurrentPos); err != nil || n != 1 {
					return errf("read: %d %v", n, err)
				}
			}
			return nil
		})
	})
	b.Run("socket", func(b *testing.B) {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			b.Fatal(err)
		}
		defer unix.Close(fds[0])
		defer unix.Close(fds[1])
		benchTask(b, func(t *T) error {
			buf, msg := make([]byte, 8), []byte("x")
			for i := 0; i < b.N; i++ {
				if _, err := t.Send(fds[0], msg, 0); err != nil {
					return err
				}
				if n, err := t.Recv(fds[1], buf, 0); err != nil || n != 1 {
					return errf("recv: %d %v", n, err)
				}
			}
			return nil
		})
	})
}
