//go:build linux

package ring

import (
	"sync"

	"golang.org/x/sys/unix"
)

// Bytes a multishot read or recv consumed that no loop body saw. The
// kernel may read data after the loop decided to end (a break, a cancelled
// context): its cancel races the request's next read, which runs as soon as
// data arrives unless DEFER_TASKRUN holds it back until the next enter (6.1+
// and not everywhere usable). Data queued behind the entry the body broke
// on is in the same place. Such bytes are no longer in the socket or pipe,
// so the executor keeps them per fd and the next Read, Recv, ReadMultishot
// or RecvMultishot of that fd on this executor returns them first; T.Close
// of the fd drops them. Executor thread only.
//
// The bytes belong to the open file the stream read, not to the fd number:
// the fd may be closed by any path (T.Close before the loop's break
// disposes of the last entries, unix.Close, a close on another executor)
// and its number reused by another socket. So each stream records the
// identity of its file when it starts (fileID, while the fd surely names
// it), the bytes are kept under the fd and that identity, and a take hands
// them over only when the fd still names the same file: on a mismatch they
// are dropped, so a reused number never sees them and holds no stale
// bytes past its first read. The check costs a syscall only when something
// is kept for the fd.

// fileID is the identity of an open file: the socket cookie (SO_COOKIE,
// 4.12, unique per socket for the boot; dups share it) or, for other files
// or where SO_COOKIE fails, the device and inode (pipes and sockets have an
// inode of their own). The zero fileID is a file that cannot be told apart
// from others (the anonymous inode that eventfd, timerfd, signalfd and the
// like share, or an fd that fstat refuses): bytes read from it are dropped
// rather than kept.
type fileID struct {
	kind uint8  // idNone, idCookie, idInode
	a, b uint64 // the cookie; or the device and the inode
}

const (
	idNone uint8 = iota
	idCookie
	idInode
)

// keptBytes is what fd has kept, and the file they came from.
type keptBytes struct {
	id fileID
	b  []byte
}

// identify returns the identity of the file fd names (a stream records it
// when it starts).
func identify(fd int) fileID {
	if c, err := unix.GetsockoptUint64(fd, unix.SOL_SOCKET, unix.SO_COOKIE); err == nil {
		return fileID{kind: idCookie, a: c}
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || sharedInode(&st) {
		return fileID{}
	}
	return fileID{kind: idInode, a: uint64(st.Dev), b: uint64(st.Ino)} // uint32 on some GOARCHes
}

// sameFile reports whether fd still names the file of id (never for the
// zero fileID).
func sameFile(fd int, id fileID) bool {
	switch id.kind {
	case idCookie:
		c, err := unix.GetsockoptUint64(fd, unix.SOL_SOCKET, unix.SO_COOKIE)
		return err == nil && c == id.a
	case idInode:
		var st unix.Stat_t
		return unix.Fstat(fd, &st) == nil && uint64(st.Dev) == id.a && uint64(st.Ino) == id.b
	}
	return false
}

// inode is a device and inode number (ok false: none).
type inode struct {
	dev, ino uint64
	ok       bool
}

// anonInode is the anonymous inode many kinds of files share, probed once
// with an eventfd.
var anonInode = sync.OnceValue(func() inode {
	fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
	if err != nil {
		return inode{}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return inode{}
	}
	return inode{dev: uint64(st.Dev), ino: uint64(st.Ino), ok: true}
})

// sharedInode reports whether st is of an inode that files which are not
// the same share: the anonymous inode (no file type in its mode, or the
// one an eventfd has).
func sharedInode(st *unix.Stat_t) bool {
	if st.Mode&unix.S_IFMT == 0 {
		return true
	}
	a := anonInode()
	return a.ok && uint64(st.Dev) == a.dev && uint64(st.Ino) == a.ino
}

// keep appends a copy of data to what fd has kept from the file of id;
// bytes fd kept from another file are dropped first, and bytes of a file
// that cannot be identified are not kept.
func (r *Backend) keep(fd int, id fileID, data []byte) {
	if len(data) == 0 {
		return
	}
	if id.kind == idNone {
		r.c.KeptStale += len(data)
		return
	}
	if r.kept == nil {
		r.kept = make(map[int]keptBytes)
	}
	k := r.kept[fd]
	if k.id != id { // nothing kept, or bytes of a file the number no longer names
		r.c.KeptStale += len(k.b)
		k = keptBytes{id: id}
	}
	k.b = append(k.b, data...)
	r.kept[fd] = k
	r.c.KeptBytes += len(data)
}

// keptOf returns what fd has kept when fd still names the file the bytes
// came from; bytes of another file are dropped.
func (r *Backend) keptOf(fd int) (keptBytes, bool) {
	k, ok := r.kept[fd]
	if !ok {
		return k, false
	}
	if !sameFile(fd, k.id) {
		delete(r.kept, fd)
		r.c.KeptStale += len(k.b)
		return keptBytes{}, false
	}
	return k, true
}

// takeKept copies into buf what fd has kept, removing it unless peek.
// It reports 0 when nothing is kept (also for an empty buf); callers on
// hot paths check len(r.kept) first.
func (r *Backend) takeKept(fd int, buf []byte, peek bool) int {
	if len(buf) == 0 {
		return 0
	}
	k, ok := r.keptOf(fd)
	if !ok {
		return 0
	}
	n := copy(buf, k.b)
	switch {
	case peek:
	case n == len(k.b):
		delete(r.kept, fd)
	default:
		k.b = k.b[n:]
		r.kept[fd] = k
	}
	return n
}

// TakeKept removes and returns what fd has kept (nil when nothing): a
// new multishot loop of fd yields it first (iop.Streams).
func (r *Backend) TakeKept(fd int) []byte {
	if len(r.kept) == 0 {
		return nil
	}
	k, ok := r.keptOf(fd)
	if !ok {
		return nil
	}
	delete(r.kept, fd)
	return k.b
}

// dropKept forgets what fd has kept (it is being closed).
func (r *Backend) dropKept(fd int) {
	if len(r.kept) != 0 {
		delete(r.kept, fd)
	}
}
