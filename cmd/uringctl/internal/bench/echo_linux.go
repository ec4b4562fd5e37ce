//go:build linux

package bench

import (
	"fmt"
	"io"
	"net"
	"time"

	"github.com/pure-uring/uring/task"
)

// runEcho: S-byte echo (1 KiB by default) over each number of connections;
// the server is a task per connection on --executors executors (1 by
// default; several share the port with SO_REUSEPORT), or a goroutine per
// connection on Go's net; the client is the same Go code for both.
func runEcho(c *Config) ([]Point, error) {
	size := int64(1024)
	if len(c.Sizes) > 0 {
		size = c.Sizes[0]
	}
	if size > 1<<20 {
		return nil, fmt.Errorf("echo: --sizes %d exceeds 1M", size)
	}
	d := c.dur()
	var out []Point
	for _, execs := range orInts(c.Executors, []int{1}) {
		for _, conns := range orInts(c.Conns, []int{4, 16, 64}) {
			s := spec{
				meta: Point{Workload: "echo", Axis: "conns", X: int64(conns), Unit: "msg/s", Higher: true,
					Params: Params{Conns: conns, Size: size, Executors: execs, Duration: d.String(), Load: "in-process"}},
				project: []impl{{"task server", func() (sample, error) { return echoTask(execs, conns, int(size), d) }},
					{"task server fallback", func() (sample, error) { return echoTask(execs, conns, int(size), d, task.WithoutIOUring()) }}},
				baseline: impl{"go net server", func() (sample, error) { return echoGo(conns, int(size), d) }},
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

func echoRoundTrip(size int) func(c net.Conn, scratch []byte) error {
	msg := make([]byte, size)
	for i := range msg {
		msg[i] = byte(i)
	}
	return func(c net.Conn, scratch []byte) error {
		if _, err := c.Write(msg); err != nil {
			return err
		}
		_, err := io.ReadFull(c, scratch[:size])
		return err
	}
}

func echoServeTask(size int) func(t *task.T, fd int) error {
	return func(t *task.T, fd int) error {
		buf := make([]byte, size)
		for {
			n, err := t.Recv(fd, buf, 0)
			if err != nil || n == 0 {
				return err
			}
			for off := 0; off < n; {
				m, err := t.Send(fd, buf[off:n], 0)
				if err != nil {
					return err
				}
				off += m
			}
		}
	}
}

func echoTask(execs, conns, size int, d time.Duration, opts ...task.Option) (sample, error) {
	srv, err := startTaskServer(execs, echoServeTask(size), opts...)
	if err != nil {
		return sample{}, err
	}
	defer srv.Close()
	return clientRun(srv.addr, conns, d, echoRoundTrip(size))
}

func echoGo(conns, size int, d time.Duration) (sample, error) {
	srv, err := startGoServer(func(c net.Conn) {
		buf := make([]byte, size)
		for {
			n, err := c.Read(buf)
			if err != nil {
				return
			}
			if _, err := c.Write(buf[:n]); err != nil {
				return
			}
		}
	})
	if err != nil {
		return sample{}, err
	}
	defer srv.Close()
	return clientRun(srv.addr, conns, d, echoRoundTrip(size))
}
