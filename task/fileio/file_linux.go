//go:build linux

package fileio

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/internal/fdio"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
)

// NewFile wraps of, which the File then owns (close the File, not of).
// Its reads and writes at offsets go through r's rings when of is a
// regular file or a block device; everything else stays os's.
func (r *Rings) NewFile(of *os.File) *File {
	if of == nil {
		return nil
	}
	f := &File{of: of, fd: -1}
	if len(r.rings) == 0 {
		return f
	}
	rc, err := of.SyscallConn()
	if err != nil {
		return f
	}
	var st unix.Stat_t
	var fl int
	var ctlErr error
	if err := rc.Control(func(fd uintptr) {
		f.fd = int(fd)
		if ctlErr = unix.Fstat(f.fd, &st); ctlErr == nil {
			fl, ctlErr = unix.FcntlInt(fd, unix.F_GETFL, 0)
		}
	}); err != nil || ctlErr != nil {
		return f
	}
	if kind := st.Mode & unix.S_IFMT; kind != unix.S_IFREG && kind != unix.S_IFBLK {
		return f // pollable or special: os's throughout
	}
	f.rings = r
	f.group = newSyncGroup(f.fd, fl)
	f.direct = fl&unix.O_DIRECT != 0
	f.append = fl&unix.O_APPEND != 0
	f.nowaitRead.Store(!f.direct)
	return f
}

// pread is one read of up to len(b) bytes at off: from the page cache
// without waiting when it holds them, else through a ring (plain pread
// once the rings are closed or broken).
func (f *File) pread(b []byte, off int64) (int, error) {
	if f.nowaitRead.Load() {
		// preadv2(RWF_NOWAIT) as a raw system call (fdio.PreadCached):
		// cheaper than os's pread(2) for a page the cache holds, and an
		// EAGAIN for one it must wait for, which the ring then reads.
		n, err := fdio.PreadCached(f.fd, b, off)
		switch {
		case err == nil:
			return n, nil // all, part (the rest comes next round) or 0 at EOF
		case err == unix.EOPNOTSUPP || err == unix.ENOSYS || err == unix.EINVAL:
			f.nowaitRead.Store(false) // no RWF_NOWAIT here: the ring every time
		case err != unix.EAGAIN && err != unix.EINTR:
			return 0, err
		}
	}
	fd := f.fd
	if res, ok := f.rings.do(func(q *sys.SQE) error { return sqe.Read(q, fd, b, off) }, b); ok {
		return result(res)
	}
	// No ring: the rings closed, or their enter fails for good.
	return ignoringEINTR(func() (int, error) { return unix.Pread(f.fd, b, off) })
}

// pwrite is one write of up to len(b) bytes at off. An O_DIRECT write
// goes through a ring once more than ringWriteDepth of them are in flight
// on the file's Rings; fewer are plain pwrite(2) calls, as os's. An
// O_DIRECT write that io_uring runs completes through the kernel's
// direct-I/O workqueue and then the submitter's task work (two wakes
// where a blocking pwrite has one): through the ring at every depth,
// measured here (virtio disk, 5 reps) 0.98x / 0.88x os.File at QD 1 / 4,
// then 1.34x / 1.42x / 1.50x / 2.01x at QD 6 / 8 / 12 / 16, as the
// reaper's batches overtake os's threads. A buffered write is a
// plain pwrite, as os's: the page cache takes it at memory speed, and
// through io_uring a buffered write that must wait (O_DSYNC, block
// allocation) goes to io-wq, which runs the writes to one file one at a
// time (measured: 0.16-0.27x os.File at QD 16-128 with O_DSYNC); a
// synchronous file's (O_DSYNC, O_SYNC) overlapping writes share flushes
// instead (syncGroup). Plain pwrite once the rings are closed or broken.
func (f *File) pwrite(b []byte, off int64) (int, error) {
	if f.group != nil {
		return f.group.write(f.fd, b, off)
	}
	if f.direct {
		w := &f.rings.directWrites
		defer w.Add(-1)
		if w.Add(1) > ringWriteDepth {
			fd := f.fd
			if res, ok := f.rings.do(func(q *sys.SQE) error { return sqe.Write(q, fd, b, off) }, b); ok {
				f.rings.ringWrites.Add(1)
				return result(res)
			}
			// No ring: the rings closed, or their enter fails for good.
		}
	}
	return ignoringEINTR(func() (int, error) { return unix.Pwrite(f.fd, b, off) })
}

// ringWriteDepth is how many O_DIRECT writes may be in flight on one
// Rings as plain pwrite calls; the ones beyond go through a ring.
const ringWriteDepth = 4

// result turns a CQE's res into a count or the errno.
func result(res int32) (int, error) {
	if res < 0 {
		return 0, syscall.Errno(-res)
	}
	return int(res), nil
}

func ignoringEINTR(call func() (int, error)) (int, error) {
	for {
		n, err := call()
		if err != unix.EINTR {
			return n, err
		}
	}
}
