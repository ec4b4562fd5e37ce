//go:build linux

package bench

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pure-uring/uring/task"
	"github.com/pure-uring/uring/task/goio"
)

const helloBody = "Hello, World!"

// httpLoad drives an HTTP server at addr for d with conns keep-alive
// connections and returns req/s and p99 (µs).
type httpLoad struct {
	name string // "wrk" or "in-process"
	run  func(addr string, conns int, d time.Duration) (sample, error)
}

// pickLoad: wrk when installed (and peers are allowed, and the run lasts a
// second or more: wrk counts in whole seconds), else the in-process client.
func (c *Config) pickLoad() httpLoad {
	if !c.NoPeers && c.dur() >= time.Second {
		if bin, err := exec.LookPath("wrk"); err == nil {
			return httpLoad{"wrk", func(addr string, conns int, d time.Duration) (sample, error) { return runWrk(bin, addr, conns, d) }}
		}
	}
	return httpLoad{"in-process", func(addr string, conns int, d time.Duration) (sample, error) {
		return clientRun(addr, conns, d, httpRoundTrip(addr))
	}}
}

// runHTTP: hello world on 1 and NCPU task executors vs net/http (with
// GOMAXPROCS set to the same count while wrk is the load).
func runHTTP(c *Config) ([]Point, error) {
	return httpSweep(c, "http", "task hello", httpTask)
}

// runHTTPStd: the same net/http server code served on the task runtime's
// net.Listener (goio.On(rt).Listen) vs on net.Listen, for each load shape
// (--mode: keepalive sweeps --conns, default 1,10,100,1000; close is a new
// connection per request and pipeline 16 requests per write, at --conns,
// default 10), on 1 and NCPU executors (--executors). The shapes other
// than keepalive need wrk; so do the latency percentiles' max.
func runHTTPStd(c *Config) ([]Point, error) {
	load := c.pickLoad()
	d := c.dur()
	execs := []int{1}
	if n := runtime.NumCPU(); n > 1 {
		execs = append(execs, n)
	}
	var out []Point
	for _, mode := range orStrings(c.Modes, []string{string(shapeKeepAlive)}) {
		shape := httpShape(mode)
		defConns := []int{10}
		switch shape {
		case shapeKeepAlive:
			defConns = []int{1, 10, 100, 1000}
		case shapeClose, shapePipeline:
		default:
			return nil, fmt.Errorf("http-std: --mode %q: want keepalive, close or pipeline", mode)
		}
		for _, ex := range orInts(c.Executors, execs) {
			for _, conns := range orInts(c.Conns, defConns) {
				pts, err := c.httpStdPoint(shape, load, ex, conns, d)
				if err != nil {
					return nil, err
				}
				out = append(out, pts...)
			}
		}
	}
	return out, nil
}

// httpStdPoint measures one shape, executor count and connection count.
func (c *Config) httpStdPoint(shape httpShape, load httpLoad, execs, conns int, d time.Duration) ([]Point, error) {
	procs := 0
	if load.name == "wrk" {
		procs = execs
	}
	meta := Point{Workload: "http-std", Mode: string(shape), Axis: "conns", X: int64(conns), Unit: "req/s", Higher: true,
		Params: Params{Executors: execs, Conns: conns, Duration: d.String(), Load: load.name}}
	if shape != shapeKeepAlive && load.name != "wrk" {
		return []Point{unsupported(meta, "net/http on goio.Listener", "net/http", "the "+string(shape)+" shape needs wrk (not installed, or --no-peers)", max(c.Reps, 1))}, nil
	}
	run := load.run
	if load.name == "wrk" {
		bin, _ := exec.LookPath("wrk")
		run = func(addr string, conns int, d time.Duration) (sample, error) {
			return runWrkShape(bin, addr, conns, d, shape)
		}
	}
	shaped := httpLoad{name: load.name, run: run}
	withProcs := func(f func() (sample, error)) func() (sample, error) {
		return func() (sample, error) {
			if procs > 0 {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			}
			return f()
		}
	}
	s := spec{
		meta: meta,
		project: []impl{
			{"net/http on goio.Listener", withProcs(func() (sample, error) { return httpOnRuntimeWith(execs, conns, d, shaped) })},
			{"net/http on goio.Listener fallback", withProcs(func() (sample, error) {
				return httpOnRuntimeWith(execs, conns, d, shaped, task.WithoutIOUring())
			})},
			{"net/http on goio.Listener ring-conn waits", withProcs(func() (sample, error) {
				return httpOnRuntimeWith(execs, conns, d, shaped, task.WithRingConnWaits())
			})},
		},
		baseline: impl{"net/http", func() (sample, error) { return httpStd(procs, conns, d, shaped) }},
	}
	return c.measure(s)
}

func httpSweep(c *Config, workload, name string, serve func(execs, conns int, d time.Duration, load httpLoad) (sample, error)) ([]Point, error) {
	conns := 10
	if len(c.Conns) > 0 {
		conns = c.Conns[0]
	}
	load := c.pickLoad()
	d := c.dur()
	def := []int{1}
	if n := runtime.NumCPU(); n > 1 {
		def = append(def, n)
	}
	var out []Point
	for _, execs := range orInts(c.Executors, def) {
		procs := 0
		if load.name == "wrk" {
			procs = execs
		}
		s := spec{
			meta: Point{Workload: workload, Axis: "executors", X: int64(execs), Unit: "req/s", Higher: true,
				Params: Params{Executors: execs, Conns: conns, Duration: d.String(), Load: load.name}},
			project: []impl{{name, func() (sample, error) {
				if procs > 0 {
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				}
				return serve(execs, conns, d, load)
			}}},
			baseline: impl{"net/http", func() (sample, error) { return httpStd(procs, conns, d, load) }},
		}
		s.peers = c.fasthttpPeers(workload, execs, conns, d, load)
		pts, err := c.measure(s)
		if err != nil {
			return nil, err
		}
		out = append(out, pts...)
	}
	return out, nil
}

func httpOnRuntimeWith(execs, conns int, d time.Duration, load httpLoad, opts ...task.Option) (sample, error) {
	rt, err := task.NewRuntime(execs, opts...)
	if err != nil {
		return sample{}, err
	}
	defer rt.Close()
	ln, err := goio.On(rt).Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return sample{}, err
	}
	smp, err := serveHTTP(ln, conns, d, load)
	noteStats(rt.Stats())
	return smp, err
}

// serveHTTP serves the hello handler with net/http on ln while load runs.
func serveHTTP(ln net.Listener, conns int, d time.Duration, load httpLoad) (sample, error) {
	srv := &http.Server{Handler: helloHandler()}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); srv.Serve(ln) }()
	defer func() { srv.Close(); wg.Wait() }()
	return load.run(ln.Addr().String(), conns, d)
}

func helloHandler() http.Handler {
	body := []byte(helloBody)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write(body)
	})
}

func httpStd(procs, conns int, d time.Duration, load httpLoad) (sample, error) {
	if procs > 0 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	}
	ln, err := listen("127.0.0.1:0", false)
	if err != nil {
		return sample{}, err
	}
	return serveHTTP(ln, conns, d, load)
}

// helloResponse is what net/http sends for the hello handler (same headers,
// same length); the Date is the server's start time.
func helloResponse() []byte {
	return []byte("HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nDate: " +
		time.Now().UTC().Format(http.TimeFormat) + "\r\nContent-Length: " + strconv.Itoa(len(helloBody)) + "\r\n\r\n" + helloBody)
}

var headerEnd = []byte("\r\n\r\n")

// httpServeTask serves keep-alive GET requests on fd: it answers every
// complete request head in what it received with one send (pipelining
// works), keeping a partial head for the next recv.
func httpServeTask(resp []byte) func(t *task.T, fd int) error {
	return func(t *task.T, fd int) error {
		buf := make([]byte, 8192)
		out := make([]byte, 0, 16*len(resp))
		have := 0
		for {
			n, err := t.Recv(fd, buf[have:], 0)
			if err != nil || n == 0 {
				return err
			}
			have += n
			used := 0
			out = out[:0]
			for {
				i := bytes.Index(buf[used:have], headerEnd)
				if i < 0 {
					break
				}
				used += i + len(headerEnd)
				out = append(out, resp...)
			}
			if used == 0 && have == len(buf) {
				return errors.New("http: request head larger than 8 KiB")
			}
			have = copy(buf, buf[used:have])
			for off := 0; off < len(out); {
				m, err := t.Send(fd, out[off:], 0)
				if err != nil {
					return err
				}
				off += m
			}
		}
	}
}

func httpTask(execs, conns int, d time.Duration, load httpLoad) (sample, error) {
	srv, err := startTaskServer(execs, httpServeTask(helloResponse()))
	if err != nil {
		return sample{}, err
	}
	defer srv.Close()
	return load.run(srv.addr, conns, d)
}

// httpRoundTrip is the in-process client: one GET, then the response head
// and its Content-Length body.
func httpRoundTrip(addr string) func(c net.Conn, scratch []byte) error {
	req := []byte("GET / HTTP/1.1\r\nHost: " + addr + "\r\nUser-Agent: uringctl-bench\r\n\r\n")
	readers := sync.Map{}
	return func(c net.Conn, scratch []byte) error {
		v, ok := readers.Load(c)
		if !ok {
			v, _ = readers.LoadOrStore(c, bufio.NewReaderSize(c, 4096))
		}
		br := v.(*bufio.Reader)
		if _, err := c.Write(req); err != nil {
			return err
		}
		length := -1
		for first := true; ; first = false {
			line, err := br.ReadSlice('\n')
			if err != nil {
				return err
			}
			if first && !bytes.HasPrefix(line, []byte("HTTP/1.1 200")) {
				return fmt.Errorf("http: status line %q", bytes.TrimSpace(line))
			}
			if len(line) <= 2 {
				break
			}
			if k, v, ok := bytes.Cut(line, []byte(":")); ok && strings.EqualFold(string(k), "Content-Length") {
				if length, err = strconv.Atoi(string(bytes.TrimSpace(v))); err != nil {
					return fmt.Errorf("http: Content-Length %q", v)
				}
			}
		}
		if length < 0 {
			return errors.New("http: response without Content-Length")
		}
		_, err := br.Discard(length)
		return err
	}
}

var (
	wrkRate = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	wrkP99  = regexp.MustCompile(`(?m)^\s+99%\s+([0-9.]+)(us|ms|s)\s*$`)
	wrkMax  = regexp.MustCompile(`(?m)^\s+Latency\s+\S+\s+\S+\s+([0-9.]+)(us|ms|s)\s`)
	wrkBad  = regexp.MustCompile(`Non-2xx or 3xx responses:\s+(\d+)`)
)

// httpShape is how the load uses its connections.
type httpShape string

const (
	shapeKeepAlive httpShape = "keepalive" // requests one after another on each kept-alive connection
	shapeClose     httpShape = "close"     // a new connection per request (Connection: close)
	shapePipeline  httpShape = "pipeline"  // 16 requests sent at once on each connection, then 16 more
)

// pipelineDepth is the requests wrk writes at once per connection in the
// pipeline shape.
const pipelineDepth = 16

// wrkPipelineScript makes wrk send pipelineDepth requests per write.
var wrkPipelineScript = fmt.Sprintf(`init = function(args)
  local r = {}
  for i = 1, %d do r[i] = wrk.format(nil, "/") end
  req = table.concat(r)
end
request = function() return req end
`, pipelineDepth)

// runWrk runs wrk -t1 -cN -dSECONDS --latency against addr.
func runWrk(bin, addr string, conns int, d time.Duration) (sample, error) {
	return runWrkShape(bin, addr, conns, d, shapeKeepAlive)
}

// runWrkShape is runWrk with a load shape.
func runWrkShape(bin, addr string, conns int, d time.Duration, shape httpShape) (sample, error) {
	secs := max(int(d.Round(time.Second)/time.Second), 1)
	threads := 1
	if conns >= 100 {
		threads = min(runtime.NumCPU(), 4)
	}
	args := []string{"-t" + strconv.Itoa(threads), "-c" + strconv.Itoa(conns), "-d" + strconv.Itoa(secs) + "s", "--latency", "--timeout", "10s"}
	switch shape {
	case shapeClose:
		args = append(args, "-H", "Connection: close")
	case shapePipeline:
		f, err := os.CreateTemp("", "wrk-pipeline-*.lua")
		if err != nil {
			return sample{}, err
		}
		defer os.Remove(f.Name())
		if _, err := f.WriteString(wrkPipelineScript); err != nil {
			f.Close()
			return sample{}, err
		}
		f.Close()
		args = append(args, "-s", f.Name())
	}
	out, err := exec.Command(bin, append(args, "http://"+addr+"/")...).CombinedOutput()
	if err != nil {
		return sample{}, fmt.Errorf("wrk: %w: %s", err, firstLine(string(out)))
	}
	return parseWrk(out)
}

func parseWrk(out []byte) (sample, error) {
	if m := wrkBad.FindSubmatch(out); m != nil {
		return sample{}, fmt.Errorf("wrk: %s non-2xx responses", m[1])
	}
	m := wrkRate.FindSubmatch(out)
	if m == nil {
		return sample{}, fmt.Errorf("wrk: no Requests/sec in its output: %q", firstLine(string(out)))
	}
	rate, _ := strconv.ParseFloat(string(m[1]), 64)
	s := sample{v: rate}
	if m := wrkP99.FindSubmatch(out); m != nil {
		s.p99 = wrkMicros(m[1], m[2])
	}
	if m := wrkMax.FindSubmatch(out); m != nil {
		s.max = wrkMicros(m[1], m[2])
	}
	return s, nil
}

// wrkMicros is a wrk duration (a number and us, ms or s) in µs.
func wrkMicros(num, unit []byte) float64 {
	v, _ := strconv.ParseFloat(string(num), 64)
	switch string(unit) {
	case "ms":
		v *= 1e3
	case "s":
		v *= 1e6
	}
	return v
}
