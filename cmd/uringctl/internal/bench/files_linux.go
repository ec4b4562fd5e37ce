//go:build linux

package bench

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/task/fileio"
)

// files modes: direct and buffered read a file (O_DIRECT; the page cache
// warm), write-direct and write-dsync write a temp file of the same size
// (O_DIRECT; buffered with O_DSYNC). fileio and os open the file with the
// same flags.
var (
	filesModes        = []string{"direct", "buffered", "write-direct", "write-dsync"}
	filesDefaultModes = []string{"direct", "buffered"}
)

// runFiles: QD goroutines, each looping 4 KiB ReadAt or WriteAt at random
// aligned offsets of one file, on a task/fileio File (package-level
// OpenFile: Default's rings) vs an *os.File opened with the same flags;
// for reads on io_uring, QD tasks on one executor reading the same way
// (randread's task side) as a peer.
func runFiles(c *Config) ([]Point, error) {
	modes := orStrings(c.Modes, filesDefaultModes)
	for _, m := range modes {
		if !contains(filesModes, m) {
			return nil, fmt.Errorf("files: unknown --mode %q (want %s)", m, strings.Join(filesModes, ","))
		}
	}
	size := c.FileSize
	if size == 0 {
		size = defaultFileSize
	}
	if size < 1<<20 {
		return nil, fmt.Errorf("files: --size %d is below 1M", size)
	}
	var reads, writes bool
	for _, m := range modes {
		if strings.HasPrefix(m, "write-") {
			writes = true
		} else {
			reads = true
		}
	}
	var rpath, wpath string
	if reads {
		p, cleanup, err := c.prepareFile("files", size)
		if err != nil {
			return nil, fmt.Errorf("files: %w", err)
		}
		defer cleanup()
		rpath = p
	}
	if writes {
		// Writes go to a temp file of their own in --dir, never to --file.
		wc := *c
		wc.File = ""
		p, cleanup, err := wc.prepareFile("files-write", size)
		if err != nil {
			return nil, fmt.Errorf("files: %w", err)
		}
		defer cleanup()
		wpath = p
	}
	proj := "fileio.File"
	fallback := fileio.Default().Fallback()
	if fallback != nil {
		// The package runs on plain system calls: say so in every row.
		proj = "fileio.File (fallback: no io_uring)"
		c.logf("bench: files: fileio.Default() runs on plain system calls: %v", fallback)
	}
	d := c.dur()
	var out []Point
	for _, mode := range modes {
		fc := filesConfig{mode: mode, blocks: size / readSize, d: d, path: rpath}
		var why string
		switch mode {
		case "direct":
			fc.flags = os.O_RDONLY | syscall.O_DIRECT
		case "buffered":
			fc.flags = os.O_RDONLY
			c.Progress.Show("files: warming the page cache")
			if err := warm(rpath, size); err != nil {
				return nil, fmt.Errorf("files: %w", err)
			}
		case "write-direct":
			fc.path, fc.write, fc.flags = wpath, true, os.O_WRONLY|syscall.O_DIRECT
		case "write-dsync":
			fc.path, fc.write, fc.flags = wpath, true, os.O_WRONLY|syscall.O_DSYNC
		}
		if fc.flags&syscall.O_DIRECT != 0 {
			why = directIO(fc.path)
		}
		op := "ReadAt"
		if fc.write {
			op = "WriteAt"
		}
		for _, qd := range orInts(c.QD, []int{1, 16, 128}) {
			meta := Point{Workload: "files", Mode: mode, Axis: "qd", X: int64(qd), Unit: "ops/s", Higher: true,
				Params: Params{QD: qd, Size: readSize, FileSize: size, File: fc.path, Duration: d.String()}}
			base := "os.File " + op
			if why != "" {
				out = append(out, unsupported(meta, proj+" "+op, base, why, c.Reps))
				continue
			}
			q := fc
			q.qd = qd
			s := spec{meta: meta,
				project: []impl{{proj + " " + op, func() (sample, error) {
					return q.run(func() (filesFile, error) { return fileio.OpenFile(q.path, q.flags, 0) })
				}}},
				baseline: impl{base, func() (sample, error) {
					return q.run(func() (filesFile, error) { return os.OpenFile(q.path, q.flags, 0) })
				}},
			}
			if !fc.write && fallback == nil {
				// The same reads awaited by QD tasks on one executor: issue
				// 24's "within 10 % of the task layer", in the same run.
				rc := rrConfig{path: q.path, mode: q.mode, qd: qd, execs: 1, blocks: q.blocks, d: q.d}
				s.peers = []impl{{"task layer (1 executor)", rc.task}}
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

// filesFile is what both *fileio.File and *os.File offer the workload.
type filesFile interface {
	io.ReaderAt
	io.WriterAt
	io.Closer
}

type filesConfig struct {
	mode   string
	path   string
	flags  int
	write  bool
	qd     int
	blocks int64
	d      time.Duration
}

// run opens the file, then qd goroutines each do 4 KiB ReadAt (or WriteAt)
// at random aligned offsets until the time is up; the sample is operations
// per second, with the process's CPU time (user + sys) per operation.
func (fc filesConfig) run(open func() (filesFile, error)) (sample, error) {
	f, err := open()
	if err != nil {
		return sample{}, err
	}
	defer f.Close()
	var wg sync.WaitGroup
	counts := make([]int64, fc.qd)
	errs := make([]error, fc.qd)
	var ru0, ru1 unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru0); err != nil {
		return sample{}, fmt.Errorf("getrusage: %w", err)
	}
	start := time.Now()
	deadline := start.Add(fc.d)
	for i := 0; i < fc.qd; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			buf := alignedBuf(readSize, readSize)
			if fc.write {
				for k := range buf {
					buf[k] = byte(i+k) | 1
				}
			}
			at := f.ReadAt
			if fc.write {
				at = f.WriteAt
			}
			r := newRng(i)
			for {
				for k := 0; k < 64; k++ {
					if _, err := at(buf, r.next(fc.blocks)*readSize); err != nil {
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
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru1); err != nil {
		return sample{}, fmt.Errorf("getrusage: %w", err)
	}
	var n int64
	for i := range counts {
		if errs[i] != nil {
			return sample{}, errs[i]
		}
		n += counts[i]
	}
	s := perSec(float64(n), el)
	if n > 0 {
		cpu := time.Duration(ru1.Utime.Nano()-ru0.Utime.Nano()) + time.Duration(ru1.Stime.Nano()-ru0.Stime.Nano())
		s.cpu = float64(cpu.Nanoseconds()) / 1e3 / float64(n)
	}
	return s, nil
}
