//go:build linux

package bench

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/reg"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/pure-uring/uring/task"
)

const (
	readSize        = 4096
	defaultFileSize = 256 << 20
)

// randread modes, cumulative as in BENCHMARKS.md: direct is O_DIRECT; fixed
// adds a registered file and registered buffers; iopoll and sqpoll add
// IORING_SETUP_IOPOLL or IORING_SETUP_SQPOLL to fixed.
var randreadModes = []string{"buffered", "direct", "fixed", "iopoll", "sqpoll"}

func runRandread(c *Config) ([]Point, error) {
	modes := orStrings(c.Modes, randreadModes)
	for _, m := range modes {
		if !contains(randreadModes, m) {
			return nil, fmt.Errorf("randread: unknown --mode %q (want %s)", m, strings.Join(randreadModes, ","))
		}
	}
	size := c.FileSize
	if size == 0 {
		size = defaultFileSize
	}
	if size < 1<<20 {
		return nil, fmt.Errorf("randread: --size %d is below 1M", size)
	}
	path, cleanup, err := c.prepareFile("randread", size)
	if err != nil {
		return nil, fmt.Errorf("randread: %w", err)
	}
	defer cleanup()
	blocks := size / readSize
	execs := 1
	if len(c.Executors) > 0 {
		execs = c.Executors[0]
	}
	d := c.dur()
	fio := ""
	if !c.NoPeers {
		if p, err := exec_LookPath("fio"); err == nil {
			fio = p
		} else {
			c.logf("bench: randread: fio not installed, no fio peer")
		}
	}
	var out []Point
	for _, mode := range modes {
		direct := mode != "buffered"
		if !direct {
			c.Progress.Show("randread: warming the page cache")
			if err := warm(path, size); err != nil {
				return nil, fmt.Errorf("randread: %w", err)
			}
		}
		var why string
		if direct {
			why = directIO(path)
		}
		if mode == "iopoll" && why == "" {
			why = pollQueues(path)
		}
		for _, qd := range orInts(c.QD, []int{1, 4, 16, 64, 128}) {
			meta := Point{Workload: "randread", Mode: mode, Axis: "qd", X: int64(qd), Unit: "IOPS", Higher: true,
				Params: Params{QD: qd, Size: readSize, Executors: execs, FileSize: size, File: path, Duration: d.String()}}
			proj := fmt.Sprintf("task (%d exec)", execs)
			base := "go ReadAt"
			if direct {
				base = "go ReadAt O_DIRECT"
			}
			if why != "" {
				out = append(out, unsupported(meta, proj, base, why, c.Reps))
				continue
			}
			rc := rrConfig{path: path, mode: mode, qd: qd, execs: execs, blocks: blocks, d: d}
			s := spec{meta: meta,
				project:  []impl{{proj, func() (sample, error) { return rc.task() }}},
				baseline: impl{base, func() (sample, error) { return rc.goReadAt() }},
			}
			if mode == "buffered" {
				fb := rc
				fb.fb = true
				s.project = append(s.project, impl{proj + " fallback", func() (sample, error) { return fb.task() }})
			}
			if fio != "" {
				s.peers = append(s.peers, impl{"fio io_uring", func() (sample, error) { return rc.fio(fio, size) }})
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

// prepareFile returns a file of at least size bytes of non-zero data: --file
// (created or extended when shorter), else a temp file in --dir (default
// the working directory: /tmp may be a tmpfs, which refuses O_DIRECT),
// removed by cleanup; workload names the temp file and the progress line.
// A --file that is a block device is read as it is, never written: --size
// must not exceed the device.
func (c *Config) prepareFile(workload string, size int64) (string, func(), error) {
	path, cleanup := c.File, func() {}
	if path != "" {
		if st, err := os.Stat(path); err == nil && st.Mode()&os.ModeDevice != 0 && st.Mode()&os.ModeCharDevice == 0 {
			dev, err := blockDeviceSize(path)
			if err != nil {
				return "", nil, err
			}
			if size > dev {
				return "", nil, fmt.Errorf("--size %s exceeds the block device %s (%s)", FormatSize(size), path, FormatSize(dev))
			}
			return path, cleanup, nil
		}
	}
	if path == "" {
		dir := c.Dir
		if dir == "" {
			dir = "."
		}
		f, err := os.CreateTemp(dir, "uring-bench-"+workload+"-*.dat")
		if err != nil {
			return "", nil, err
		}
		path = f.Name()
		f.Close()
		cleanup = func() { os.Remove(path) }
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		cleanup()
		return "", nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		cleanup()
		return "", nil, err
	}
	if !st.Mode().IsRegular() {
		return "", nil, fmt.Errorf("--file %s is neither a regular file nor a block device (%v)", path, st.Mode().Type())
	}
	if st.Size() >= size {
		return path, cleanup, nil
	}
	c.Progress.Show(fmt.Sprintf("%s: writing %s to %s", workload, FormatSize(size), path))
	chunk := make([]byte, 1<<20)
	x := uint64(0x9E3779B97F4A7C15)
	for i := range chunk {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		chunk[i] = byte(x) | 1
	}
	for off := st.Size() &^ (1<<20 - 1); off < size; off += int64(len(chunk)) {
		n := min(int64(len(chunk)), size-off)
		if _, err := f.WriteAt(chunk[:n], off); err != nil {
			cleanup()
			return "", nil, err
		}
	}
	if err := f.Sync(); err != nil {
		cleanup()
		return "", nil, err
	}
	return path, cleanup, nil
}

// blockDeviceSize opens a block device read-only and returns its size
// (the offset of its end: Stat says 0 for a device).
func blockDeviceSize(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return 0, fmt.Errorf("size of the block device %s: %w", path, err)
	}
	return n, nil
}

// warm reads the first size bytes of path into the page cache.
func warm(path string, size int64) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.CopyN(io.Discard, f, size)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return err
}

// directIO says why path cannot be opened with O_DIRECT ("" if it can):
// tmpfs, for one, refuses it.
func directIO(path string) string {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_DIRECT, 0)
	if err != nil {
		if errors.Is(err, unix.EINVAL) {
			return "the file system refuses O_DIRECT (use --dir or --file on a disk)"
		}
		return err.Error()
	}
	f.Close()
	return ""
}

// pollQueues says why the device under path (or the block device path
// is) cannot do polled I/O ("" if it can), from
// /sys/dev/block/MAJ:MIN[/..]/queue/io_poll (a partition's queue is its
// disk's).
func pollQueues(path string) string {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return err.Error()
	}
	num := st.Dev // a file: the device it lives on
	if st.Mode&unix.S_IFMT == unix.S_IFBLK {
		num = st.Rdev // a block device: itself
	}
	dev := fmt.Sprintf("/sys/dev/block/%d:%d", unix.Major(num), unix.Minor(num))
	name := dev
	if real, err := filepath.EvalSymlinks(dev); err == nil {
		name = filepath.Base(real)
	} else {
		return "the file is not on a block device (" + dev + " missing), no polled I/O"
	}
	for _, q := range []string{dev + "/queue/io_poll", dev + "/../queue/io_poll"} {
		b, err := os.ReadFile(q)
		if err != nil {
			continue
		}
		if strings.TrimSpace(string(b)) == "1" {
			return ""
		}
		if p, err := filepath.EvalSymlinks(filepath.Dir(filepath.Dir(q))); err == nil {
			name = filepath.Base(p)
		}
		return "device has no poll queues (" + name + ": queue/io_poll = 0)"
	}
	return "device has no poll queues (" + name + ": no queue/io_poll)"
}

var exec_LookPath = lookPath

type rrConfig struct {
	path   string
	mode   string
	qd     int
	execs  int
	blocks int64
	d      time.Duration
	fb     bool // the task layer's fallback backend (task.WithoutIOUring)
}

// rng is xorshift64*: worker i of both implementations draws the same
// offsets.
type rng uint64

func newRng(i int) rng { return rng(0x9E3779B97F4A7C15 * uint64(i+1)) }

func (r *rng) next(n int64) int64 {
	x := uint64(*r)
	x ^= x >> 12
	x ^= x << 25
	x ^= x >> 27
	*r = rng(x)
	return int64((x * 0x2545F4914F6CDD1D) % uint64(n))
}

func (rc rrConfig) openFlags() int {
	if rc.mode == "buffered" {
		return os.O_RDONLY
	}
	return os.O_RDONLY | unix.O_DIRECT
}

// goReadAt: qd goroutines, each ReadAt at random offsets until the time is up.
func (rc rrConfig) goReadAt() (sample, error) {
	f, err := os.OpenFile(rc.path, rc.openFlags(), 0)
	if err != nil {
		return sample{}, err
	}
	defer f.Close()
	var wg sync.WaitGroup
	counts := make([]int64, rc.qd)
	errs := make([]error, rc.qd)
	start := time.Now()
	deadline := start.Add(rc.d)
	for i := 0; i < rc.qd; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			buf := alignedBuf(readSize, readSize)
			r := newRng(i)
			for {
				for k := 0; k < 64; k++ {
					if _, err := f.ReadAt(buf, r.next(rc.blocks)*readSize); err != nil {
						errs[i] = err
						return
					}
				}
				counts[i] += 64
				if time.Now().After(deadline) {
					return
				}
			}
		}(i)
	}
	wg.Wait()
	el := time.Since(start)
	var n int64
	for i := range counts {
		if errs[i] != nil {
			return sample{}, errs[i]
		}
		n += counts[i]
	}
	return perSec(float64(n), el), nil
}

// task: rc.execs executors, rc.qd tasks spread over them, each awaiting a
// read at a random offset in a loop.
func (rc rrConfig) task() (sample, error) {
	f, err := os.OpenFile(rc.path, rc.openFlags(), 0)
	if err != nil {
		return sample{}, err
	}
	defer f.Close()
	fd := int(f.Fd())
	fixed := rc.mode == "fixed" || rc.mode == "iopoll" || rc.mode == "sqpoll"
	var opts []task.Option
	if rc.fb {
		opts = append(opts, task.WithoutIOUring())
	}
	switch rc.mode {
	case "iopoll":
		opts = append(opts, task.WithRingOptions(uring.WithIOPoll()))
	case "sqpoll":
		opts = append(opts, task.WithoutDeferTaskrun(), task.WithRingOptions(uring.WithSQPoll(100*time.Millisecond)))
	}
	start := time.Now()
	deadline := start.Add(rc.d)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var total int64
	var firstErr error
	for e := 0; e < rc.execs; e++ {
		nt := rc.qd / rc.execs
		if e < rc.qd%rc.execs {
			nt++
		}
		if nt == 0 {
			continue
		}
		wg.Add(1)
		go func(e, nt int) {
			defer wg.Done()
			var n int64
			err := onExecutor(func(t *task.T) error {
				var bufs *reg.Buffers
				if fixed {
					ring := t.Executor().Ring()
					files, err := reg.RegisterFiles(ring, []int{fd}, nil)
					if err != nil {
						return fmt.Errorf("register file: %w", err)
					}
					defer files.Unregister()
					bufs, err = reg.RegisterBuffers(ring, reg.BufferConfig{Count: nt, Size: readSize})
					if err != nil {
						return fmt.Errorf("register buffers: %w", err)
					}
					defer bufs.Unregister()
				}
				hs := make([]*task.Handle[int64], nt)
				for i := range hs {
					worker := e + i*rc.execs
					hs[i] = task.Spawn(t, func(t *task.T) (int64, error) {
						return rrTask(t, fd, bufs, rc.mode == "buffered", i, worker, rc.blocks, deadline)
					})
				}
				var errs []error
				for _, h := range hs {
					c, err := h.Join(t)
					n += c
					errs = append(errs, err)
				}
				return errors.Join(errs...)
			}, append(opts, task.WithEntries(ringEntries(max(nt, 32))))...)
			mu.Lock()
			total += n
			if err != nil && firstErr == nil {
				firstErr = err
			}
			mu.Unlock()
		}(e, nt)
	}
	wg.Wait()
	el := time.Since(start)
	if firstErr != nil {
		return sample{}, firstErr
	}
	return perSec(float64(total), el), nil
}

func rrTask(t *task.T, fd int, bufs *reg.Buffers, cached bool, slot, worker int, blocks int64, deadline time.Time) (int64, error) {
	r := newRng(worker)
	var n int64
	if bufs == nil {
		buf := alignedBuf(readSize, readSize)
		read := t.Read
		if cached { // page cache: a lone read skips the ring
			read = t.ReadCached
		}
		for {
			for k := 0; k < 64; k++ {
				if _, err := read(fd, buf, r.next(blocks)*readSize); err != nil {
					return n, err
				}
			}
			n += 64
			if time.Now().After(deadline) {
				return n, nil
			}
		}
	}
	buf := bufs.Buf(slot)
	var off int64
	var perr error
	prep := func(s *sys.SQE) {
		if perr = sqe.ReadFixed(s, 0, buf, off, uint16(slot)); perr == nil {
			perr = sqe.SetSlot(s, 0)
		}
	}
	for {
		for k := 0; k < 64; k++ {
			off = r.next(blocks) * readSize
			res, _, err := t.Await(prep)
			if perr != nil {
				return n, perr
			}
			if err != nil {
				return n, err
			}
			if res != readSize {
				return n, fmt.Errorf("read_fixed returned %d", res)
			}
		}
		n += 64
		if time.Now().After(deadline) {
			return n, nil
		}
	}
}
