//go:build linux

package bench

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/poll"
	"github.com/pure-uring/uring/reg"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/pure-uring/uring/task"
)

// senderChunk is what the loopback sender writes per call: large, so that
// the receiver (reading into buffers of the point's size) is what limits
// the rate.
const senderChunk = 64 << 10

var tcprecvModes = []string{"single", "multishot"}

// runTCPRecv: conns loopback connections; Go senders write for the
// duration; the receiver reads into buffers of each size: a task doing
// single-shot recv (mode single), a multishot recv with a provided-buffer
// ring (mode multishot, on a poll.Loop: the task layer has no multishot
// recv yet), and Go's net.Conn.Read (the baseline).
func runTCPRecv(c *Config) ([]Point, error) {
	conns := 1
	if len(c.Conns) > 0 {
		conns = c.Conns[0]
	}
	d := c.dur()
	var out []Point
	for _, mode := range orStrings(c.Modes, tcprecvModes) {
		if !contains(tcprecvModes, mode) {
			return nil, fmt.Errorf("tcprecv: unknown --mode %q (want single,multishot)", mode)
		}
		for _, size := range orInt64s(c.Sizes, []int64{64, 512, 2048, 8192, 65536}) {
			if size > 1<<20 {
				return nil, fmt.Errorf("tcprecv: --sizes %d exceeds 1M", size)
			}
			sz := int(size)
			s := spec{
				meta: Point{Workload: "tcprecv", Mode: mode, Axis: "size", X: size, Unit: "MB/s", Higher: true,
					Params: Params{Size: size, Conns: conns, Duration: d.String()}},
				baseline: impl{"go net.Conn.Read", func() (sample, error) { return recvRun(conns, d, recvGo(sz)) }},
			}
			if mode == "single" {
				s.project = []impl{{"task Recv", func() (sample, error) { return recvRun(conns, d, recvTask(sz)) }}}
			} else {
				if why := multishotRecvMissing(); why != "" {
					out = append(out, unsupported(s.meta, "poll multishot recv", s.baseline.name, why, c.Reps))
					continue
				}
				s.project = []impl{{"poll multishot recv", func() (sample, error) { return recvRun(conns, d, recvMultishot(sz)) }}}
			}
			pts, err := c.measure(s)
			if err != nil {
				return nil, err
			}
			out = append(out, pts...)
		}
	}
	return out, nil
}

// multishotRecvMissing says why this kernel cannot run the multishot mode
// (multishot recv 6.0, provided-buffer rings 5.19), "" when it can.
func multishotRecvMissing() string {
	for _, c := range []uring.Capability{uring.CapMultishotRecv, uring.CapBufRing} {
		if err := uring.CheckCapability(c); err != nil {
			return err.Error()
		}
	}
	return ""
}

// receiver consumes the accepted connections until EOF and returns the
// bytes received; it calls begin (once) when it is ready to receive, which
// starts the senders and the clock.
type receiver func(conns []net.Conn, begin func()) (int64, error)

// recvRun connects conns senders to conns accepted connections, starts
// the senders for d, and returns the receiver's MB/s (bytes up to EOF over
// the time to EOF).
func recvRun(conns int, d time.Duration, recv receiver) (sample, error) {
	ln, err := listen("127.0.0.1:0", false)
	if err != nil {
		return sample{}, err
	}
	defer ln.Close()
	senders := make([]net.Conn, conns)
	accepted := make([]net.Conn, conns)
	for i := range senders {
		if senders[i], err = net.Dial("tcp", ln.Addr().String()); err != nil {
			return sample{}, err
		}
		if accepted[i], err = ln.Accept(); err != nil {
			return sample{}, err
		}
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	var start time.Time
	var timer *time.Timer
	begin := func() {
		start = time.Now()
		for _, s := range senders {
			wg.Add(1)
			go func(s net.Conn) {
				defer wg.Done()
				defer s.Close()
				buf := make([]byte, senderChunk)
				// one chunk at least, however late this goroutine runs
				for {
					if _, err := s.Write(buf); err != nil || stop.Load() {
						return
					}
				}
			}(s)
		}
		timer = time.AfterFunc(d, func() { stop.Store(true) })
	}
	n, err := recv(accepted, begin)
	el := time.Since(start)
	stop.Store(true)
	if timer == nil { // the receiver failed before it was ready
		for _, s := range senders {
			s.Close()
		}
		return sample{}, err
	}
	timer.Stop()
	wg.Wait()
	if err != nil {
		return sample{}, err
	}
	return sample{v: float64(n) / 1e6 / el.Seconds()}, nil
}

func recvGo(size int) receiver {
	return func(conns []net.Conn, begin func()) (int64, error) {
		begin()
		var total atomic.Int64
		var wg sync.WaitGroup
		errs := make([]error, len(conns))
		for i, c := range conns {
			wg.Add(1)
			go func(i int, c net.Conn) {
				defer wg.Done()
				defer c.Close()
				buf := make([]byte, size)
				var n int64
				for {
					m, err := c.Read(buf)
					n += int64(m)
					if err == io.EOF {
						break
					}
					if err != nil {
						errs[i] = err
						break
					}
				}
				total.Add(n)
			}(i, c)
		}
		wg.Wait()
		return total.Load(), errors.Join(errs...)
	}
}

// connFds takes the accepted sockets out of Go's poller for the ring.
func connFds(conns []net.Conn) ([]*os.File, []int, error) {
	files := make([]*os.File, 0, len(conns))
	fds := make([]int, 0, len(conns))
	for _, c := range conns {
		f, fd, err := tcpConnFd(c)
		if err != nil {
			closeFiles(files)
			return nil, nil, err
		}
		files, fds = append(files, f), append(fds, fd)
	}
	return files, fds, nil
}

func closeFiles(fs []*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

func recvTask(size int) receiver {
	return func(conns []net.Conn, begin func()) (int64, error) {
		files, fds, err := connFds(conns)
		if err != nil {
			return 0, err
		}
		defer closeFiles(files)
		var total int64
		err = onExecutor(func(t *task.T) error {
			begin()
			hs := make([]*task.Handle[int64], len(fds))
			for i, fd := range fds {
				hs[i] = task.Spawn(t, func(t *task.T) (int64, error) {
					buf := make([]byte, size)
					var n int64
					for {
						m, err := t.Recv(fd, buf, 0)
						if err != nil {
							return n, err
						}
						if m == 0 {
							return n, nil
						}
						n += int64(m)
					}
				})
			}
			var errs []error
			for _, h := range hs {
				n, err := h.Join(t)
				total += n
				errs = append(errs, err)
			}
			return errors.Join(errs...)
		})
		return total, err
	}
}

// msRecv is one multishot recv on a poll.Loop: each CQE's buffer is counted
// and given back; the recv is re-armed when F_MORE drops with buffers
// exhausted, and ends at EOF.
type msRecv struct {
	l     *poll.Loop
	pool  *reg.BufPool
	fd    int
	bytes int64
	err   error
	done  func()
}

func (m *msRecv) Prep(s *sys.SQE) error { return sqe.RecvMultishot(s, m.fd, 0, m.pool.Group()) }

func (m *msRecv) Handle(c *sys.CQE) {
	if c.Res > 0 {
		bid, data, err := m.pool.Take(c.Res, c.Flags)
		if err != nil {
			m.finish(err)
			return
		}
		m.bytes += int64(len(data))
		if err := m.pool.Put(bid); err != nil {
			m.finish(err)
			return
		}
	}
	if c.Flags&sys.CQEFMore != 0 {
		return
	}
	switch {
	case c.Res == 0:
		m.finish(nil)
	case c.Res > 0 || c.Res == -int32(unix.ENOBUFS):
		if _, err := m.l.Start(m); err != nil {
			m.finish(err)
		}
	default:
		m.finish(fmt.Errorf("multishot recv: %w", unix.Errno(-c.Res)))
	}
}

func (m *msRecv) finish(err error) {
	m.err = err
	m.done()
}

func recvMultishot(size int) receiver {
	return func(conns []net.Conn, begin func()) (int64, error) {
		files, fds, err := connFds(conns)
		if err != nil {
			return 0, err
		}
		defer closeFiles(files)
		l, err := poll.New()
		if err != nil {
			return 0, err
		}
		defer l.Close()
		var pool *reg.BufPool
		var wg sync.WaitGroup
		rs := make([]*msRecv, len(fds))
		count := max(256, min(4096, (4<<20)/size))
		if err := l.Run(func() {
			if pool, err = reg.NewBufPool(l.Ring(), reg.PoolConfig{Group: 1, Count: count, Size: size}); err != nil {
				return
			}
			for i, fd := range fds {
				wg.Add(1)
				rs[i] = &msRecv{l: l, pool: pool, fd: fd, done: wg.Done}
				if _, err = l.Start(rs[i]); err != nil {
					return
				}
			}
		}); err != nil {
			return 0, err
		}
		if err != nil {
			return 0, err
		}
		begin()
		wg.Wait()
		var total int64
		var errs []error
		for _, r := range rs {
			total += r.bytes
			errs = append(errs, r.err)
		}
		l.Run(func() { pool.Close() })
		return total, errors.Join(errs...)
	}
}
