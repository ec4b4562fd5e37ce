//go:build linux

package sqe_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// Every fuzz target prepares an SQE from arbitrary input and checks: an
// error leaves the SQE untouched and is expected; otherwise the whole SQE
// equals the encoding of the input (so each field decodes back to its
// argument and every field the op does not use is zero).

func validFd(fd int) bool   { return fd >= 0 && fd <= 1<<31-1 }
func validOff(o int64) bool { return o >= -1 }

// FuzzReadWrite covers the buffer read/write/send/recv builders.
func FuzzReadWrite(f *testing.F) {
	f.Add(uint8(0), 3, 16, int64(0), uint16(0), 0)
	f.Add(uint8(1), -1, 0, int64(-1), uint16(7), 0)
	f.Add(uint8(2), 1<<31, 5, int64(-2), uint16(1), 0x40)
	f.Add(uint8(5), 0, 4096, int64(1<<62), uint16(65535), -1)
	f.Fuzz(func(t *testing.T, which uint8, fd, n int, off int64, bufIndex uint16, flags int) {
		buf := make([]byte, uint(n)%8192)
		type b struct {
			op    sys.Op
			build func(s *sys.SQE) error
			valid bool
			want  sys.SQE
		}
		base := sys.SQE{Fd: int32(fd), Addr: sys.SliceAddr(buf), Len: uint32(len(buf))}
		rw := base
		rw.Off = uint64(off)
		fixed := rw
		fixed.BufIndex = bufIndex
		sr := base
		sr.OpFlags = uint32(flags)
		cases := []b{
			{sys.OpRead, func(s *sys.SQE) error { return sqe.Read(s, fd, buf, off) }, validFd(fd) && validOff(off), rw},
			{sys.OpWrite, func(s *sys.SQE) error { return sqe.Write(s, fd, buf, off) }, validFd(fd) && validOff(off), rw},
			{sys.OpReadFixed, func(s *sys.SQE) error { return sqe.ReadFixed(s, fd, buf, off, bufIndex) }, validFd(fd) && validOff(off), fixed},
			{sys.OpWriteFixed, func(s *sys.SQE) error { return sqe.WriteFixed(s, fd, buf, off, bufIndex) }, validFd(fd) && validOff(off), fixed},
			{sys.OpSend, func(s *sys.SQE) error { return sqe.Send(s, fd, buf, flags) }, validFd(fd) && validFlags(flags), sr},
			{sys.OpRecv, func(s *sys.SQE) error { return sqe.Recv(s, fd, buf, flags) }, validFd(fd) && validFlags(flags), sr},
		}
		c := cases[int(which)%len(cases)]
		c.want.Opcode = c.op
		s := garbage()
		err := c.build(&s)
		if !c.valid {
			require.Error(t, err)
			require.Equal(t, garbage(), s)
			return
		}
		require.NoError(t, err)
		require.Equal(t, c.want, s)
	})
}

// FuzzPath covers the path builders: NUL checks, dirfd, slots, O_CLOEXEC.
func FuzzPath(f *testing.F) {
	f.Add([]byte("a/b\x00"), -100, 0, uint32(0o644), uint32(0))
	f.Add([]byte("a\x00b\x00"), 3, 0x80000, uint32(0), uint32(0xffffffff))
	f.Add([]byte{}, -1, 1, uint32(1), uint32(1<<20))
	f.Add([]byte("\x00"), 0, 0, uint32(0), uint32(1<<20-1))
	f.Fuzz(func(t *testing.T, path []byte, dirfd, flags int, mode, slot uint32) {
		flags = int(int32(flags))
		pathOK := len(path) > 0 && path[len(path)-1] == 0 && bytes.IndexByte(path[:len(path)-1], 0) < 0
		dirOK := dirfd == unix.AT_FDCWD || validFd(dirfd)
		slotOK := slot < 1<<20 || slot == uint32(sqe.AllocSlot)
		noExec := flags&unix.O_CLOEXEC == 0

		s := garbage()
		err := sqe.Openat(&s, dirfd, path, flags, mode)
		if !(pathOK && dirOK) {
			require.Error(t, err)
			require.Equal(t, garbage(), s)
		} else {
			require.NoError(t, err)
			require.Equal(t, sys.SQE{Opcode: sys.OpOpenat, Fd: int32(dirfd), Addr: sys.SliceAddr(path), Len: mode, OpFlags: uint32(flags | unix.O_CLOEXEC)}, s)
		}

		s = garbage()
		err = sqe.OpenatDirect(&s, dirfd, path, flags, mode, sqe.Slot(slot))
		if !(pathOK && dirOK && slotOK && noExec) {
			require.Error(t, err)
			require.Equal(t, garbage(), s)
		} else {
			require.NoError(t, err)
			fi := slot + 1
			if slot == uint32(sqe.AllocSlot) {
				fi = sys.FileIndexAlloc
			}
			require.Equal(t, sys.SQE{Opcode: sys.OpOpenat, Fd: int32(dirfd), Addr: sys.SliceAddr(path), Len: mode, OpFlags: uint32(flags), FileIndex: fi}, s)
		}

		s = garbage()
		err = sqe.Symlinkat(&s, path, dirfd, path)
		if !(pathOK && dirOK) {
			require.Error(t, err)
		} else {
			require.NoError(t, err)
			require.Equal(t, sys.SQE{Opcode: sys.OpSymlinkat, Fd: int32(dirfd), Addr: sys.SliceAddr(path), Off: sys.SliceAddr(path)}, s)
		}
	})
}

// FuzzTimeout covers the duration-to-timespec builders.
func FuzzTimeout(f *testing.F) {
	f.Add(int64(time.Second), uint32(0), uint32(0), uint64(1))
	f.Add(int64(-1), uint32(3), uint32(sys.TimeoutMultishot), uint64(2))
	f.Add(int64(1<<62), uint32(1), uint32(sys.TimeoutBoottime|sys.TimeoutRealtime), uint64(3))
	f.Add(int64(5), uint32(0), uint32(sys.TimeoutAbs), uint64(4))
	f.Fuzz(func(t *testing.T, d int64, count, flags uint32, ud uint64) {
		var ts sys.Timespec
		s := garbage()
		err := sqe.Timeout(&s, &ts, time.Duration(d), count, flags)
		known := flags&^(sys.TimeoutBoottime|sys.TimeoutRealtime|sys.TimeoutETimeSuccess|sys.TimeoutMultishot) == 0
		oneClock := flags&sys.TimeoutClockMask != sys.TimeoutClockMask
		if d < 0 || !known || !oneClock {
			require.Error(t, err)
			require.Equal(t, garbage(), s)
			require.Equal(t, sys.Timespec{}, ts)
		} else {
			require.NoError(t, err)
			require.Equal(t, sys.SQE{Opcode: sys.OpTimeout, Fd: -1, Addr: sys.PtrAddr(&ts), Len: 1, Off: uint64(count), OpFlags: flags}, s)
			require.Equal(t, d, ts.Sec*1e9+ts.Nsec)
			require.Less(t, ts.Nsec, int64(1e9))
		}

		// An update takes TimeoutAbs and nothing else (io_timeout_remove_prep).
		var ts2 sys.Timespec
		s = garbage()
		err = sqe.TimeoutUpdate(&s, &ts2, time.Duration(d), ud, flags)
		if d < 0 || flags&^sys.TimeoutAbs != 0 {
			require.Error(t, err)
			require.Equal(t, garbage(), s)
		} else {
			require.NoError(t, err)
			require.Equal(t, sys.SQE{Opcode: sys.OpTimeoutRemove, Fd: -1, Addr: ud, Off: sys.PtrAddr(&ts2), OpFlags: flags | sys.TimeoutUpdate}, s)
		}

		// Absolute: a clock, ETIME_SUCCESS; ABS implied; no multishot.
		var ts3 sys.Timespec
		s = garbage()
		err = sqe.TimeoutAbs(&s, &ts3, time.Duration(d), count, flags)
		absKnown := flags&^(sys.TimeoutAbs|sys.TimeoutBoottime|sys.TimeoutRealtime|sys.TimeoutETimeSuccess) == 0
		if d < 0 || !absKnown || !oneClock {
			require.Error(t, err)
			require.Equal(t, garbage(), s)
			require.Equal(t, sys.Timespec{}, ts3)
		} else {
			require.NoError(t, err)
			require.Equal(t, sys.SQE{Opcode: sys.OpTimeout, Fd: -1, Addr: sys.PtrAddr(&ts3), Len: 1, Off: uint64(count), OpFlags: flags | sys.TimeoutAbs}, s)
			require.Equal(t, d, ts3.Sec*1e9+ts3.Nsec)
		}
	})
}

// FuzzSlot covers the slot encodings: +1 for direct targets, none for
// fixed-file references, IORING_FILE_INDEX_ALLOC for AllocSlot.
func FuzzSlot(f *testing.F) {
	for _, v := range []uint32{0, 1, 1<<20 - 1, 1 << 20, 0xfffffffe, 0xffffffff} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, slot uint32) {
		inRange := slot < 1<<20
		alloc := slot == 0xffffffff
		target := slot + 1
		if alloc {
			target = sys.FileIndexAlloc
		}
		s := garbage()
		err := sqe.AcceptDirect(&s, 3, nil, nil, 0, sqe.Slot(slot))
		if inRange || alloc {
			require.NoError(t, err)
			require.Equal(t, sys.SQE{Opcode: sys.OpAccept, Fd: 3, FileIndex: target}, s)
		} else {
			require.Error(t, err)
			require.Equal(t, garbage(), s)
		}

		s = garbage()
		err = sqe.CloseDirect(&s, sqe.Slot(slot))
		if inRange {
			require.NoError(t, err)
			require.Equal(t, sys.SQE{Opcode: sys.OpClose, FileIndex: slot + 1}, s)
		} else {
			require.Error(t, err)
			require.Equal(t, garbage(), s)
		}

		s = sys.SQE{}
		sqe.Nop(&s)
		err = sqe.SetSlot(&s, sqe.Slot(slot))
		if inRange {
			require.NoError(t, err)
			require.Equal(t, sys.SQE{Opcode: sys.OpNop, Fd: int32(slot), Flags: sys.SQEFixedFile}, s)
		} else {
			require.Error(t, err)
			require.Equal(t, sys.SQE{Opcode: sys.OpNop, Fd: -1}, s)
		}
	})
}

// FuzzSockopt covers the URING_CMD socket-option layout (level and optname
// share the addr field, optlen sits in file_index, optval in addr3).
func FuzzSockopt(f *testing.F) {
	f.Add(3, 1, 8, []byte{1, 0, 0, 0})
	f.Add(-1, 0, 0, []byte{})
	f.Add(5, -1, 1<<31, []byte("x"))
	f.Fuzz(func(t *testing.T, fd, level, optname int, optval []byte) {
		s := garbage()
		err := sqe.Setsockopt(&s, fd, level, optname, optval)
		valid := validFd(fd) && level >= 0 && level <= 1<<31-1 && optname >= 0 && optname <= 1<<31-1
		if !valid {
			require.Error(t, err)
			require.Equal(t, garbage(), s)
			return
		}
		require.NoError(t, err)
		require.Equal(t, uint32(level), uint32(s.Addr))
		require.Equal(t, uint32(optname), uint32(s.Addr>>32))
		require.Equal(t, sys.SQE{Opcode: sys.OpUringCmd, Fd: int32(fd), Off: uint64(sys.SocketUringOpSetsockopt),
			Addr: s.Addr, FileIndex: uint32(len(optval)), Addr3: sys.SliceAddr(optval)}, s)
	})
}

// validFlags: a flags argument fits the SQE's 32-bit flags field.
func validFlags(flags int) bool { return int64(flags) >= -1<<31 && int64(flags) <= 1<<32-1 }
