//go:build linux

package fdinfo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ringLink is the target of /proc/PID/fd/N for an io_uring fd.
const ringLink = "anon_inode:[io_uring]"

// Scan finds the io_uring fds of pids (every process when pids is empty) and
// parses their fdinfo, reading again (with a growing delay) while the kernel
// leaves out parts it prints only under the ring's lock. Rings created with
// SETUP_REGISTERED_FD_ONLY have no fd and are not found. The error is non-nil
// only when /proc itself cannot be read.
func Scan(pids []int, opt ScanOptions) (*Result, error) {
	opt = opt.withDefaults()
	partial := false
	if opt.PartialLock != nil {
		partial = *opt.PartialLock
	} else if rel, err := os.ReadFile(filepath.Join(opt.Proc, "sys/kernel/osrelease")); err == nil {
		partial = PartialLockKernel(string(rel))
	}
	res := &Result{}
	explicit := len(pids) > 0
	if !explicit {
		ents, err := os.ReadDir(opt.Proc)
		if err != nil {
			return nil, fmt.Errorf("fdinfo: %w", err)
		}
		for _, e := range ents {
			if pid, err := strconv.Atoi(e.Name()); err == nil && pid > 0 {
				pids = append(pids, pid)
			}
		}
	}
	sort.Ints(pids)
	for _, pid := range pids {
		insts, err := scanPID(opt, pid, partial)
		switch {
		case err == nil:
			res.Instances = append(res.Instances, insts...)
		case errors.Is(err, fs.ErrPermission):
			res.Denied = append(res.Denied, pid)
			if explicit {
				res.Errors = append(res.Errors, err)
			}
		case explicit:
			res.Errors = append(res.Errors, err)
		}
	}
	return res, nil
}

// PartialLockKernel reports whether a kernel release ("6.8.0-45-generic")
// predates 6.15, where fdinfo stopped printing a ring without its lock.
func PartialLockKernel(release string) bool {
	release = strings.TrimSpace(release)
	majS, rest, _ := strings.Cut(release, ".")
	minS := rest
	if i := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		minS = rest[:i]
	}
	maj, err1 := strconv.Atoi(majS)
	min, err2 := strconv.Atoi(minS)
	if err1 != nil || err2 != nil {
		return false
	}
	return maj < 6 || (maj == 6 && min < 15)
}

func scanPID(opt ScanOptions, pid int, partial bool) ([]Instance, error) {
	dir := filepath.Join(opt.Proc, strconv.Itoa(pid))
	ents, err := os.ReadDir(filepath.Join(dir, "fd"))
	if err != nil {
		return nil, fmt.Errorf("fdinfo: pid %d: %w", pid, err)
	}
	var fds []int
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if link, err := os.Readlink(filepath.Join(dir, "fd", e.Name())); err == nil && link == ringLink {
			fds = append(fds, fd)
		}
	}
	if len(fds) == 0 {
		return nil, nil
	}
	sort.Ints(fds)
	comm, _ := os.ReadFile(filepath.Join(dir, "comm"))
	var out []Instance
	for _, fd := range fds {
		path := filepath.Join(dir, "fdinfo", strconv.Itoa(fd))
		info, attempts, err := readRetry(path, opt, partial)
		if err != nil {
			continue // closed since the fd list was read
		}
		in := Instance{PID: pid, Comm: strings.TrimSpace(string(comm)), FD: fd, Info: info, Attempts: attempts}
		if info.SQThread > 0 {
			in.SQThread = readThread(opt.Proc, pid, info.SQThread)
		}
		out = append(out, in)
	}
	return out, nil
}

// readRetry reads and parses path until no part is missing or the retries
// run out, keeping the most complete read.
func readRetry(path string, opt ScanOptions, partial bool) (*Info, int, error) {
	return retry(func() ([]byte, error) { return os.ReadFile(path) }, opt, partial)
}

func retry(read func() ([]byte, error), opt ScanOptions, partial bool) (*Info, int, error) {
	var best *Info
	delay := opt.RetryDelay
	attempts := 0
	for {
		attempts++
		b, err := read()
		if err != nil {
			if best != nil {
				return best, attempts, nil
			}
			return nil, attempts, err
		}
		info := ParseWith(b, Options{PartialLock: partial})
		if best == nil || len(info.Unavailable) <= len(best.Unavailable) {
			best = info
		}
		if len(best.Unavailable) == 0 || attempts > opt.Retries {
			return best, attempts, nil
		}
		time.Sleep(delay)
		delay *= 2
	}
}

// readThread reads the SQPOLL thread's stat; it lives in the ring owner's
// thread group, or (shared with ATTACH_WQ from another process) elsewhere.
func readThread(proc string, pid, tid int) *Thread {
	for _, p := range []string{
		filepath.Join(proc, strconv.Itoa(pid), "task", strconv.Itoa(tid), "stat"),
		filepath.Join(proc, strconv.Itoa(tid), "stat"),
	} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if t, err := ParseStat(string(b)); err == nil {
			return &t
		}
	}
	return nil
}
